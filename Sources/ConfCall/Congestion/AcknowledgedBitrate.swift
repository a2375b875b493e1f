import ConfCore

/// The rate at which the receiver got our packets, from transport feedback: the bytes that arrived
/// in the last `window` of the receiver's clock (draft-ietf-rmcat-gcc-02 section 5.5 measures the
/// incoming rate R_hat over 0.5 to 1 s; libwebrtc's acknowledged bitrate estimator does the same
/// with a sliding window). Until arrivals span a whole window there is no figure. Arrivals are on
/// the receiver's clock, so only signed differences of them are taken (`Instant.since` would trap
/// on a span beyond Int64).
struct AcknowledgedBitrate: Sendable {
    let window: Duration
    private var arrivals = FIFOQueue<(at: Instant, size: Int)>()
    private var bytesInWindow = 0
    private var firstArrival: Instant?
    private var latestArrival: Instant?

    init(window: Duration = .milliseconds(500)) { self.window = window }

    /// Takes one received packet. Arrivals are taken in the order given; one that claims to be
    /// earlier than the latest counts as arriving with it (so a lying clock cannot grow the queue).
    mutating func add(arrival: Instant, size: Int) {
        let at = latestArrival.map { max($0, arrival) } ?? arrival
        if firstArrival == nil { firstArrival = at }
        latestArrival = at
        let size = WireSize.clamped(size)
        arrivals.append((at, size))
        bytesInWindow += size
        while let oldest = arrivals.first, at.milliseconds(since: oldest.at) >= window.milliseconds {
            arrivals.popFirst()
            bytesInWindow -= oldest.size
        }
    }

    /// Bits per second over the last window, or nil before a window's worth of arrivals.
    var bitsPerSecond: Double? {
        guard let firstArrival, let latestArrival, latestArrival.milliseconds(since: firstArrival) >= window.milliseconds else { return nil }
        return Double(bytesInWindow) * 8 / (window.milliseconds / 1000)
    }
}
