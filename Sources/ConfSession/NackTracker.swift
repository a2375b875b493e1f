import ConfCore
import ConfWire

/// Which packets of a received stream are missing and worth asking for again (RFC 4585 generic
/// NACK): a gap in sequence numbers is asked for at once and once more a round trip later; a
/// packet still missing after that, or older than `horizon` packets, is given up (the frame is
/// then recovered with a key frame, PLI). Pure.
public struct NackTracker: Sendable {
    public var horizon = 300
    public static let minimumRetry: Duration = .milliseconds(100)
    /// How long a request waits for its answer before it is made again (a round trip, or more).
    public var retryAfter = Self.minimumRetry
    private var unwrapper = SequenceUnwrapper()
    private var highest: UInt64?
    /// Missing extended sequence numbers: when asked last, and how often.
    private var missing: [UInt64: (askedAt: Instant, tries: Int)] = [:]

    public init() {}

    public var missingCount: Int { missing.count }

    /// Takes a received sequence number; returns the numbers to ask for now (possibly none).
    public mutating func received(_ sequence: SequenceNumber, now: Instant) -> [SequenceNumber] {
        let extended = unwrapper.unwrap(sequence)
        missing[extended] = nil
        guard let last = highest else {
            highest = extended
            return []
        }
        var ask: [SequenceNumber] = []
        if extended > last {
            if extended - last > 1 && extended - last <= UInt64(horizon) {
                for gap in (last + 1)..<extended {
                    missing[gap] = (now, 1)
                    ask.append(SequenceNumber(extended: gap))
                }
            }
            highest = extended
        }
        return ask + due(now: now)
    }

    /// Numbers whose first request went unanswered for `retryAfter`: asked a second and last time.
    public mutating func due(now: Instant) -> [SequenceNumber] {
        guard let highest else { return [] }
        var ask: [UInt64] = []
        for (sequence, state) in missing {
            if highest > sequence + UInt64(horizon) || state.tries >= 2 && now.since(state.askedAt) >= retryAfter {
                missing[sequence] = nil
            } else if state.tries < 2 && now.since(state.askedAt) >= retryAfter {
                missing[sequence] = (now, state.tries + 1)
                ask.append(sequence)
            }
        }
        return ask.sorted().map { SequenceNumber(extended: $0) }
    }
}
