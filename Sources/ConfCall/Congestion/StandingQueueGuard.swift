import ConfCore

/// What the delay-based estimate does about a queue that stands while transport feedback is
/// sparse. GCC's detector reads the trend of the queuing delay, not its length: with feedback
/// every 100 ms it sees a queue grow within a few frames, but from a peer that sends feedback
/// with its regular RTCP (GStreamer's webrtcbin: about every 700 ms) the loop is slower than the
/// queue. Each over-use is seen a second late, the cut to 0.85 × the acknowledged rate drains a
/// little of it, the additive increase fills it again: the estimate saws around the capacity over
/// a queue that never empties (300-450 ms measured against webrtcbin behind a 300 kbit/s bucket).
///
/// webrtcbin's feedback also comes in bursts: ~15-20 messages of 4-6 packets each, together,
/// every ~900 ms (traced behind a 300 kbit/s bucket). So the spacing is measured between
/// bursts: a message within `sameBurst` of the one before belongs to its burst.
///
/// While the spacing is `sparseSpacing` or more on average and even the least delayed packet of
/// a message waited `limit` or more (`QueueDelayMeter.standingQueueDelay`):
/// - the estimate does not grow, nor is it cut for the detector's over-use (`hold`);
/// - it is cut (`drain`) to what empties the queue within about `drainTime` at the rate the path
///   delivers (between half and 0.85 of it), unless the packets sent since the last cut show the
///   queue shrinking by `shrinkMargin` or more; packets sent before that cut cannot show its
///   effect, so until one sent after it is reported, `hold`;
/// - a queue still over the limit `longestHold` after a cut is cut again, answered or not (one
///   that shrank, then stood: another flow's, or our cut only took our part of it);
/// - after `drainsBeforeRebase` cuts that the queue did not answer, the queue is not ours to
///   drain (a longer route, another flow keeping the bottleneck full; cutting further would only
///   starve the link): the meter takes the present delay as the empty path's (`rebase`; the
///   meter's other readers, the loss bound's "congested", the shared-bottleneck grouping and
///   probing, see the new baseline too), and the detector leads again.
/// With feedback as often as conf sends it (100-250 ms; `sparseSpacing` leaves room for a third
/// of its messages lost) the verdict is always `follow`. The owner calls `reset()` after a pause
/// in feedback: the pause is not a spacing, and what was cut before it is stale.
struct StandingQueueGuard: Sendable {
    enum Verdict: Sendable, Equatable {
        case follow, hold, rebase
        /// Down to `fraction` of the acknowledged rate.
        case drain(fraction: Double)
    }

    static let sparseSpacing: Duration = .milliseconds(500)
    static let sameBurst: Duration = .milliseconds(20)
    static let limit: Duration = .milliseconds(100)
    static let shrinkMargin: Duration = .milliseconds(10)
    static let drainTime: Duration = .seconds(1)
    static let drainsBeforeRebase = 2
    static let longestHold: Duration = .seconds(3)

    /// Milliseconds between feedback bursts, smoothed.
    private(set) var spacing: Double?
    private var lastFeedback: Instant?
    private var lastDrain: (at: Instant, standing: Duration)?
    private var unansweredDrains = 0

    /// Whether feedback comes sparsely now.
    var isSparse: Bool { spacing.map { $0 >= Self.sparseSpacing.milliseconds } ?? false }

    /// Counts a feedback message's arrival; for every message, even one that `judge` does not see.
    mutating func noteFeedback(now: Instant) {
        if let lastFeedback {
            let gap = now.since(lastFeedback)
            if gap > Self.sameBurst { spacing = spacing.map { 0.75 * $0 + 0.25 * gap.milliseconds } ?? gap.milliseconds }
        }
        lastFeedback = now
    }

    /// Forgets everything: after a pause in feedback.
    mutating func reset() { self = StandingQueueGuard() }

    /// Takes one feedback message, after `noteFeedback` and after `meter` took it.
    mutating func judge(_ reports: [SentPacketHistory.Report], meter: QueueDelayMeter, now: Instant) -> Verdict {
        guard isSparse,
              let standing = meter.standingQueueDelay, standing >= Self.limit else {
            lastDrain = nil
            unansweredDrains = 0
            return .follow
        }
        guard let lastDrain else { return drain(standing, now: now) }
        guard let since = meter.standingQueueDelay(of: reports, sentAfter: lastDrain.at) else { return .hold }
        if since <= lastDrain.standing - Self.shrinkMargin {
            unansweredDrains = 0
            return now.since(lastDrain.at) >= Self.longestHold ? drain(since, now: now) : .hold
        }
        if unansweredDrains >= Self.drainsBeforeRebase {
            self.lastDrain = nil
            unansweredDrains = 0
            return .rebase
        }
        return drain(since, now: now)
    }

    private mutating func drain(_ standing: Duration, now: Instant) -> Verdict {
        lastDrain = (now, standing)
        unansweredDrains += 1
        return .drain(fraction: Self.drainFraction(standing: standing))
    }

    /// The fraction of the delivered rate that empties a queue of `standing` within about
    /// `drainTime`, between half and GCC's 0.85.
    static func drainFraction(standing: Duration) -> Double {
        min(0.85, max(0.5, 1 - standing.milliseconds / drainTime.milliseconds))
    }
}
