/// A link's quality at a glance, from what its round trip, loss and jitter mean for a
/// conversation (ITU-T G.114 puts mouth-to-ear delay over 150 ms as noticeable and over 400 ms as
/// unacceptable; Opus with FEC hides a few percent of loss; jitter beyond the buffer is heard).
public enum LinkQuality: Int, Comparable, Sendable {
    case poor, fair, good

    public init(roundTrip: Duration?, lossPercent: Double?, jitter: Duration?) {
        let rtt = roundTrip.map { Double($0.components.seconds) * 1000 + Double($0.components.attoseconds) / 1e15 } ?? 0
        let jitterMs = jitter.map { Double($0.components.seconds) * 1000 + Double($0.components.attoseconds) / 1e15 } ?? 0
        let loss = lossPercent ?? 0
        if rtt > 400 || loss > 10 || jitterMs > 80 {
            self = .poor
        } else if rtt > 150 || loss > 2 || jitterMs > 30 {
            self = .fair
        } else {
            self = .good
        }
    }

    public static func < (a: LinkQuality, b: LinkQuality) -> Bool { a.rawValue < b.rawValue }

    public var word: String {
        switch self {
        case .good: "good"
        case .fair: "fair"
        case .poor: "poor"
        }
    }
}
