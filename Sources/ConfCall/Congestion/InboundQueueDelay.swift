import ConfCore

/// How long a peer's packets wait in queues on their way to us, beyond the least they waited
/// lately: the receiver's own view of the path, which is how it can tell that several peers'
/// packets queue in one place (its downlink). Read from the peer's audio: Opus's RTP clock
/// (48 kHz, RFC 7587) advances at the sender's capture pace, so arrival time minus timestamp
/// (the relative transit time of RFC 3550 section 6.4.1) rises by what the packet queued. Pure.
///
/// The baseline is the least transit of the last `window` (kept as two halves, so that it
/// follows a clock that drifts or a route that changes); the queue delay is the least transit of
/// the last `recentCount` packets above it (the least, so that one packet our own scheduler read
/// late does not count). Nil before a baseline, and once no audio came for `staleAfter` (a muted
/// peer sends none).
struct InboundQueueDelay: Sendable {
    static let window: Duration = .seconds(10)
    static let recentCount = 5
    static let staleAfter: Duration = .seconds(1)
    /// RTP ticks per millisecond (48 kHz).
    static let clockRate = 48.0

    private var firstArrival: Instant?
    private var lastTimestamp: UInt32?
    private var unwrappedTimestamp: Int64 = 0
    private var lastArrival: Instant?
    /// The least transit (ms) since `halfStart`, and in the half before it.
    private var currentMinimum: Double?
    private var previousMinimum: Double?
    private var halfStart: Instant?
    /// The last `recentCount` transits, oldest overwritten first (`recentNext` is the next slot).
    private var recent = [Double](repeating: .infinity, count: recentCount)
    private var recentNext = 0
    private var recentFilled = 0

    mutating func record(rtpTimestamp: UInt32, at now: Instant) {
        let first = firstArrival ?? now
        firstArrival = first
        if let last = lastTimestamp {
            // Signed 32-bit difference: a reordered packet steps back, a wrap steps forward.
            unwrappedTimestamp &+= Int64(Int32(bitPattern: rtpTimestamp &- last))
        }
        lastTimestamp = rtpTimestamp
        lastArrival = now
        let transit = now.milliseconds(since: first) - Double(unwrappedTimestamp) / Self.clockRate
        recent[recentNext] = transit
        recentNext = (recentNext + 1) % Self.recentCount
        recentFilled = min(Self.recentCount, recentFilled + 1)
        let half = Self.window / 2
        if let start = halfStart, now.since(start) >= half {
            previousMinimum = currentMinimum
            currentMinimum = nil
            halfStart = now
        }
        if halfStart == nil { halfStart = now }
        currentMinimum = min(currentMinimum ?? transit, transit)
    }

    func queueDelay(now: Instant) -> Duration? {
        guard let lastArrival, now.since(lastArrival) < Self.staleAfter, recentFilled == Self.recentCount,
              let baseline = Self.least(currentMinimum, previousMinimum), let least = recent.min() else { return nil }
        // At most a minute: timestamps are the peer's to choose, and a Double past Int64 would trap.
        return .nanoseconds(Int64(min(60_000, max(0, least - baseline)) * 1_000_000))
    }

    private static func least(_ a: Double?, _ b: Double?) -> Double? {
        guard let a else { return b }
        guard let b else { return a }
        return min(a, b)
    }
}
