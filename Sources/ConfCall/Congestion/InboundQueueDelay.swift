import ConfCore
import ConfWire

/// How long a peer's packets wait in queues on their way to us, beyond the least they waited
/// lately: the receiver's own view of the path, which is how it can tell that several peers'
/// packets queue in one place (its downlink). Read from the peer's audio: Opus's RTP clock
/// (48 kHz, RFC 7587) advances at the sender's capture pace, so arrival time minus timestamp
/// (the relative transit time of RFC 3550 section 6.4.1) rises by what the packet queued. Pure.
///
/// The baseline is the least transit of the last `window` (kept as two halves, so that it
/// follows a clock that drifts or a route that changes); the queue delay is the least transit of
/// the packets that carry the last `recentAudio` above it (the least, so that one packet our own
/// scheduler read late does not count): five 20 ms packets, or two of 60 ms. A packet of several
/// frames is read by its last frame's timestamp, the moment it could leave (by its first, a peer
/// going to 60 ms packets would seem to queue 40 ms more from then on). Nil before a baseline,
/// and once no audio came for `staleAfter` (a muted peer sends none).
struct InboundQueueDelay: Sendable {
    static let window: Duration = .seconds(10)
    /// Computed once: Duration's division is a 128-bit one in the runtime, and this runs per packet.
    static let halfWindow = window / 2
    static let recentAudio = 4_800
    /// The most packets that can carry `recentAudio` (20 ms packets; shorter ones are dropped).
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
    /// The last `recentCount` transits and the samples of their packets, oldest overwritten first
    /// (`recentNext` is the next slot).
    private var recent = [(transit: Double, samples: Int)](repeating: (.infinity, 0), count: recentCount)
    private var recentNext = 0

    /// A packet of `samples` (48 kHz; 960 for 20 ms) stamped `rtpTimestamp` arrived `now`.
    mutating func record(rtpTimestamp: UInt32, samples: Int = 960, at now: Instant) {
        let samples = min(OpusPacketDuration.maximumSamples, max(960, samples))
        let rtpTimestamp = rtpTimestamp &+ UInt32(samples - 960)
        let first = firstArrival ?? now
        firstArrival = first
        if let last = lastTimestamp {
            // Signed 32-bit difference: a reordered packet steps back, a wrap steps forward.
            unwrappedTimestamp &+= Int64(Int32(bitPattern: rtpTimestamp &- last))
        }
        lastTimestamp = rtpTimestamp
        lastArrival = now
        let transit = now.milliseconds(since: first) - Double(unwrappedTimestamp) / Self.clockRate
        recent[recentNext] = (transit, samples)
        recentNext = (recentNext + 1) % Self.recentCount
        if let start = halfStart, now.since(start) >= Self.halfWindow {
            previousMinimum = currentMinimum
            currentMinimum = nil
            halfStart = now
        }
        if halfStart == nil { halfStart = now }
        currentMinimum = min(currentMinimum ?? transit, transit)
    }

    func queueDelay(now: Instant) -> Duration? {
        guard let lastArrival, now.since(lastArrival) < Self.staleAfter, let baseline = Self.least(currentMinimum, previousMinimum),
              let least = leastRecentTransit() else { return nil }
        // At most a minute: timestamps are the peer's to choose, and a Double past Int64 would trap.
        return .nanoseconds(Int64(min(60_000, max(0, least - baseline)) * 1_000_000))
    }

    /// The least transit of the newest packets that together carry `recentAudio`; nil until
    /// that much came.
    private func leastRecentTransit() -> Double? {
        var least = Double.infinity, samples = 0
        for back in 1...Self.recentCount {
            let entry = recent[(recentNext - back + Self.recentCount) % Self.recentCount]
            least = min(least, entry.transit)
            samples += entry.samples
            if samples >= Self.recentAudio { return least }
        }
        return nil
    }

    private static func least(_ a: Double?, _ b: Double?) -> Double? {
        guard let a else { return b }
        guard let b else { return a }
        return min(a, b)
    }
}
