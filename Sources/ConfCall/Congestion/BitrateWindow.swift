import ConfCore

/// A rate over the last `window` of one clock's instants: what arrived of our packets, on the
/// receiver's clock (transport feedback's acknowledged rate; draft-ietf-rmcat-gcc-02 section 5.5
/// measures this incoming rate R_hat over 0.5 to 1 s, libwebrtc's acknowledged bitrate estimator
/// with a sliding window), or what we sent, on ours. Until the instants span a whole window there
/// is no figure. The receiver's clock may be anywhere, so only signed differences of instants are
/// taken (`Instant.since` would trap on a span beyond Int64).
struct BitrateWindow: Sendable {
    let window: Duration
    private var entries = FIFOQueue<(at: Instant, size: Int)>()
    private var bytesInWindow = 0
    private var first: Instant?
    private var latest: Instant?

    init(window: Duration = .milliseconds(500)) { self.window = window }

    /// Takes one packet. Instants are taken in the order given; one that claims to be earlier
    /// than the latest counts as the latest (so a lying clock cannot grow the queue).
    mutating func add(at instant: Instant, size: Int) {
        let at = latest.map { max($0, instant) } ?? instant
        if first == nil { first = at }
        latest = at
        let size = WireSize.clamped(size)
        entries.append((at, size))
        bytesInWindow += size
        forget(before: at)
    }

    /// Drops what is a whole window older than `now` (on the same clock as the instants): a
    /// sender's rate ends now, not at its last packet.
    mutating func advance(to now: Instant) {
        guard let latest, now.milliseconds(since: latest) > 0 else { return }
        self.latest = now
        forget(before: now)
    }

    private mutating func forget(before now: Instant) {
        while let oldest = entries.first, now.milliseconds(since: oldest.at) >= window.milliseconds {
            entries.popFirst()
            bytesInWindow -= oldest.size
        }
    }

    /// Bits per second over the last window, or nil before the instants span a window.
    var bitsPerSecond: Double? {
        guard let first, let latest, latest.milliseconds(since: first) >= window.milliseconds else { return nil }
        return Double(bytesInWindow) * 8 / (window.milliseconds / 1000)
    }
}
