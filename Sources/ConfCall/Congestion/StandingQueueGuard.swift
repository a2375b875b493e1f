import ConfCore

/// What the delay-based estimate does about a queue that stands. GCC's detector reads the trend
/// of the queuing delay, not its length: a queue that grew and then stopped growing reads as
/// normal, and the estimate goes on increasing over it. Peers whose feedback the trend reads
/// badly keep such a queue: GStreamer's webrtcbin sends it with its RTCP, in bursts about a
/// second apart (each over-use is seen a second late; a cut to 0.85 drains a little and the
/// increase fills it again), or every ~60 ms with arrival times too noisy for the trend
/// (bench/webrtcbin_capped.py behind a bucket; git show 20307e8:BENCHMARKS.md).
///
/// So when even the least delayed packet of a feedback message waited `limit` or more
/// (`QueueDelayMeter.standingQueueDelay`: a queue that stood through the whole message, not a
/// burst's own):
/// - the estimate does not grow, nor is it cut for the detector's over-use (`hold`);
/// - it is cut (`drain`), unless the packets sent since the last cut show the queue shrinking by
///   `shrinkMargin` or more; packets sent before that cut cannot show its effect, so until one
///   sent after it is reported, `hold`. While feedback is sparse (bursts `sparseSpacing` or more
///   apart on average; a message within `sameBurst` of the one before belongs to its burst) the
///   cut is to what empties the queue within about `drainTime` at the rate the path delivers
///   (between half and 0.85 of it); with frequent feedback it is GCC's 0.85;
/// - a queue still over the limit `longestHold` after a cut is cut again, answered or not (one
///   that shrank, then stood: another flow's, or our cut only took our part of it);
/// - after `drainsBeforeRebase` cuts that the queue did not answer, the queue is not ours to
///   drain (a longer route, another flow such as a TCP download keeping the bottleneck full:
///   cutting further would only starve the link): the meter takes the present delay as the empty
///   path's (`rebase`; the meter's other readers, the loss bound's "congested", the
///   shared-bottleneck grouping and probing, see the new baseline too), and the detector leads.
///
/// A receiver starved of CPU reads nothing for a while and then all it missed at once, so every
/// packet of a message can read as having waited, with no queue on the path; cut for, the
/// estimate falls to its floor at each stall (Tests/FLAKES.md, the camera VM). So the guard
/// holds, and does not cut, for a message whose packets (alone, or with the last one of the
/// message before) arrived within a tenth of the time they were sent over, that being
/// `stalledReadSpread` or more: a path's queue delivers them no faster than its link, and while
/// it stands, about as they were sent. Nor for a message of one packet, which cannot tell the
/// two apart (a paused link's audio). Waiting for a second message before every cut would also
/// tell them apart, at the cost of a longer queue each time one forms.
///
/// Nor while we send well under what we may (application-limited: a paused link's audio): so
/// little of ours cannot be what keeps a queue standing, and a cut would only keep the link from
/// the probes that find its room again.
///
/// With frequent feedback the guard stands aside while our own loop is held up (`LoopLateness`):
/// on a slow machine the wait it reads may be our own, which no cut drains (in the vivid camera
/// test's emulated VM it cut a loopback link down to the small encoding). While sparse, the
/// spacing also tells `AIMDRateControl` how late its increases are answered. The owner calls
/// `reset()` after a pause in feedback: the pause is not a spacing, and a cut before it is stale.
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
    static let stalledReadSpread: Duration = .milliseconds(20)

    /// Milliseconds between feedback bursts, smoothed.
    private(set) var spacing: Double?
    private var lastFeedback: Instant?
    private var lastDrain: (at: Instant, standing: Duration)?
    private var unansweredDrains = 0
    /// The last received packet judged, for `readAllAtOnce` across messages.
    private var lastPacket: (sentAt: Instant, arrival: Instant)?

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

    /// Takes one feedback message, after `noteFeedback` and after `meter` took it. `senderHeldUp`:
    /// our own loop ran late lately (`LoopLateness`), so with frequent feedback what stands may be
    /// our own lateness, not the path's queue: the detector alone leads then.
    mutating func judge(_ reports: [SentPacketHistory.Report], meter: QueueDelayMeter, senderHeldUp: Bool,
                        applicationLimited: Bool = false, now: Instant) -> Verdict {
        let received = ReceivedSpan(reports)
        let previous = lastPacket
        if let latest = received.latest { lastPacket = latest }
        guard isSparse || !senderHeldUp,
              let standing = meter.standingQueueDelay, standing >= Self.limit else {
            lastDrain = nil
            unansweredDrains = 0
            return .follow
        }
        // One packet alone cannot tell a queue from a reader that stalled.
        if received.count < 2 || applicationLimited || received.readAllAtOnce || received.including(previous).readAllAtOnce { return .hold }
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

    /// When a message's received packets were sent and arrived, from one pass over it.
    struct ReceivedSpan {
        private(set) var count = 0
        private var sent: ClosedRange<Instant>?
        private var arrived: ClosedRange<Instant>?
        /// The last one sent, with its arrival.
        private(set) var latest: (sentAt: Instant, arrival: Instant)?

        init(_ reports: [SentPacketHistory.Report]) {
            for report in reports {
                guard let arrival = report.arrival else { continue }
                add(sentAt: report.sentAt, arrival: arrival)
            }
        }

        private mutating func add(sentAt: Instant, arrival: Instant) {
            count += 1
            sent = sent.map { min($0.lowerBound, sentAt)...max($0.upperBound, sentAt) } ?? sentAt...sentAt
            arrived = arrived.map { min($0.lowerBound, arrival)...max($0.upperBound, arrival) } ?? arrival...arrival
            if latest.map({ sentAt > $0.sentAt }) ?? true { latest = (sentAt, arrival) }
        }

        /// The same with `packet` (the last of the message before) among them.
        func including(_ packet: (sentAt: Instant, arrival: Instant)?) -> ReceivedSpan {
            var span = self
            if let packet { span.add(sentAt: packet.sentAt, arrival: packet.arrival) }
            return span
        }

        /// Whether they arrived within a tenth of the time they were sent over, that being
        /// `stalledReadSpread` or more.
        var readAllAtOnce: Bool {
            guard let sent, let arrived else { return false }
            let sentOver = sent.upperBound.milliseconds(since: sent.lowerBound)
            return sentOver >= StandingQueueGuard.stalledReadSpread.milliseconds && arrived.upperBound.milliseconds(since: arrived.lowerBound) < sentOver / 10
        }
    }

    private mutating func drain(_ standing: Duration, now: Instant) -> Verdict {
        lastDrain = (now, standing)
        unansweredDrains += 1
        // With frequent feedback, a cut as GCC's, repeated while the queue stands; deeper only
        // while sparse, where each cut is answered a second late (deeper at any spacing, the
        // simulated weak link of CallEngineSmallVideoTests sent over its cap).
        guard isSparse else { return .drain(fraction: 0.85) }
        return .drain(fraction: min(0.85, max(0.5, 1 - standing.milliseconds / Self.drainTime.milliseconds)))
    }
}
