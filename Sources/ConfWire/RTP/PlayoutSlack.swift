import ConfCore

/// When the audio jitter buffer may skip a frame: it keeps, for every packet played, its slack
/// (how long before its turn it arrived), and skips when even the least slack of the last few
/// seconds would survive playing a frame earlier with a margin of the jitter seen (the spread of
/// recent transit times, at least 5 ms) and, while waits are recent, a frame more. The margin is
/// not a whole frame: the playout starts a frame after the first packet, so later packets have a
/// frame of slack less their extra transit over the first, and a wait a frame more; a frame's
/// margin gave a wait back only when no packet came later than the first (never, in real runs
/// on this project's machines). The least slack so settles between the margin and the margin
/// plus a frame: a wait is given back whole when the level before it was in that band (with
/// jitter under ~10 ms it always is; with more, the first packet's own lateness decides).
///
/// So one wait (a stall, a late burst) is kept while stalls may recur, as a machine that stalled
/// once stalls again, and given back after five calm spans without one; waits never add up over
/// a call: a clean link's delay comes back to where it started, and clock drift never grows it.
///
/// Slacks are kept in the current playout schedule: a skip plays everything after it one frame
/// earlier, a wait one frame later, so each shifts every recorded slack (by `offset`, which keeps
/// the records' order, so a monotonic queue holds the window's minimum).
///
/// - How long the evidence must span (`calm`), and so how long a wait is held, doubles, up to
///   16 s, when a wait follows a skip within 10 s or twice the hold (once per skip: the skip was
///   too eager, stalls recur), and is back at 2 s after a minute with no wait.
/// - While packets are being lost (one in the last 10 s), a frame more is kept: a loss is known
///   only once its successor is there, and Opus's FEC for it is in that successor; without it the
///   playout would wait at every loss.
/// - A skip takes a quiet packet: at most 60 % of the largest of the last seconds (Opus spends
///   few bytes on a pause between words, or between clicks). A steady sound has none; there a
///   skip would break the waveform, so it waits 20 s more of excess (enough for any clock drift).
///   Skips are at least 200 ms apart.
struct PlayoutSlack: Sendable {
    static let guardMilliseconds = 5.0
    static let shortestCalm = 2_000.0
    static let longestCalm = 16_000.0
    static let waitHeldCalms = 5.0

    let frameMilliseconds: Double
    private(set) var calm = PlayoutSlack.shortestCalm
    /// (played at, slack - offset), in ms, slacks increasing from the front: the window's minimum.
    private var minimums: [(at: Double, slack: Double)] = []
    private var head = 0
    private var offset = 0.0
    private var firstPlayed: Double?
    private var lastSkip: Double?
    private var lastWait: Double?
    private var lastLoss: Double?
    private var excessSince: Double?
    /// The largest recent packet, decaying by half in about 2 s (100 packets).
    private var peakSize = 0.0

    init(frameDuration: Duration) { frameMilliseconds = frameDuration.milliseconds }

    /// How long one wait is held after the last (ms): five calm spans.
    private var waitHeld: Double { Self.waitHeldCalms * calm }

    /// A packet that arrived at `arrival` plays at `now`.
    mutating func played(arrival: Instant, size: Int, now: Instant) {
        let at = Self.ms(now)
        let stored = at - Self.ms(arrival) - offset
        while minimums.count > head, minimums[minimums.count - 1].slack >= stored { minimums.removeLast() }
        minimums.append((at, stored))
        if firstPlayed == nil { firstPlayed = at }
        peakSize = max(Double(size), peakSize * 0.993)
    }

    /// The playout waited a frame for a packet that had not come: everything later plays a frame later.
    mutating func waited(now: Instant) {
        let at = Self.ms(now)
        offset += frameMilliseconds
        // The first wait after a skip, within 10 s of it or within twice the time a wait is held
        // (a stall that recurs every 20 s comes back soon after the held one was given back):
        // that skip was too eager.
        let eager = max(10_000, 2 * waitHeld)
        if let lastSkip, at - lastSkip < eager, lastWait.map({ $0 < lastSkip }) ?? true { calm = min(calm * 2, Self.longestCalm) }
        lastWait = at
        excessSince = nil
    }

    /// A packet was lost (its successor came and it did not).
    mutating func lost(now: Instant) { lastLoss = Self.ms(now) }

    /// Whether to skip the next packet (`frames` long, `size` bytes) rather than play it, keeping
    /// at least `marginMilliseconds` of slack (the jitter seen; never under 5 ms).
    mutating func shouldSkip(frames: Int, size: Int, marginMilliseconds: Double, now: Instant) -> Bool {
        let at = Self.ms(now)
        if calm > Self.shortestCalm, at - (lastWait ?? 0) >= 60_000 { calm = Self.shortestCalm }
        while head < minimums.count, minimums[head].at < at - calm { head += 1 }
        if head > 256 {
            minimums.removeFirst(head)
            head = 0
        }
        guard let firstPlayed, at - firstPlayed >= calm, head < minimums.count,
              lastSkip.map({ at - $0 >= 200 }) ?? true else { return false }
        let leastSlack = minimums[head].slack + offset
        let keep = max(Self.guardMilliseconds, marginMilliseconds) + (lastLoss.map { at - $0 < 10_000 } == true ? frameMilliseconds : 0)
        // While waits are recent, a frame over what is skipped stays: one wait is kept (a loaded
        // machine waits again soon), two or more are given back down to it. Once none has come
        // for five calm spans (at least 10 s; longer as skips prove too eager), that one goes
        // too: a stall at the start of a call does not cost its delay for the rest of it.
        let holdsAWait = lastWait.map { at - $0 < waitHeld } ?? false
        guard leastSlack - keep >= Double(frames + (holdsAWait ? 1 : 0)) * frameMilliseconds else {
            excessSince = nil
            return false
        }
        let since = excessSince ?? at
        excessSince = since
        return Double(size) <= 0.6 * peakSize || at - since >= 20_000
    }

    /// The packet was skipped: everything later plays `frames` frames earlier.
    mutating func skipped(frames: Int, now: Instant) {
        offset -= Double(frames) * frameMilliseconds
        lastSkip = Self.ms(now)
        excessSince = nil
    }

    /// The stream started over (a jump in sequence numbers): forget what was seen.
    mutating func reset() { self = PlayoutSlack(frameMilliseconds: frameMilliseconds, calm: calm) }

    private init(frameMilliseconds: Double, calm: Double) {
        self.frameMilliseconds = frameMilliseconds
        self.calm = calm
    }

    private static func ms(_ instant: Instant) -> Double { Double(instant.nanoseconds) / 1e6 }
}
