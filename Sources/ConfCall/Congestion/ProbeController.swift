import ConfCore

/// When one link probes, and towards what, as goog_cc's probe controller sits beside its
/// delay-based estimator. Pure; time is passed in. It says "send a cluster of padding at this
/// rate, numbered so"; the link packetises it, and the estimator reads the cluster's arrivals
/// (`ProbeBitrateEstimator`).
///
/// Finding lost room again: after a fall (the path was congested, or its capacity dropped and came
/// back) the delay-based estimate grows back by 8 % a second, which takes tens of seconds to climb
/// from a few hundred kbit/s to what the path carried before. libwebrtc probes instead, and so do
/// we. A fall is the target going under `probeBelowPeak` of the most the path delivered in the
/// last `peakMemory`; that peak is then kept as what the link carried before the fall, for
/// `fallMemory` after the path last delivered it. While the target is under `probeBelowCarried`
/// of it and the path shows no queue, a short cluster of padding packets goes out towards it, at
/// up to twice the target; the rate the receiver got them at lifts the estimate at once when it
/// is higher. A cluster that meets a queue only reports what the path carries. Without the
/// memory, a link that carried all its encoders wanted grows back from a low phase at 8 % a
/// second.
///
/// A shaper's token bucket (`tc tbf`, many ISPs' and routers' rate limits) lets a short cluster
/// through at once, so a probe can report room the path does not have (half as much again as
/// the bucket's rate). So each probe is on trial for `probeTrial`: if the path over-uses, queues
/// or loses in that time, the recent peak becomes what the path delivers now and the wait before
/// the next probe doubles, up to `maximumProbeWait`; a trial passed resets the wait. That wait is
/// short (libwebrtc probes an application-limited link every 5 s): in a low phase the trials fail
/// by the estimate's own saw-tooth, and the wait is then what stands between capacity coming back
/// and the link finding it (git show 20307e8:BENCHMARKS.md, "Probing back to what a link carried").
///
/// A paused link (`whilePaused`) sends audio only, and an estimate may not grow much past what
/// the path is seen to deliver (`AIMDRateControl`: 1.5 × the acknowledged rate): so until it can
/// carry the base layer again, padding fills its estimate, up to what resuming needs, at each
/// rate update. That padding fills only the estimate there is, which then grows by 8 % a second
/// at best, and any over-use signal on a jittery path undoes that: so a paused link also sends
/// clusters towards what resuming needs, on the schedule and trial of the probes after a fall.
/// Neither goes into a queue the path already holds (`pausedQueueDelayLimit`): that would only
/// delay the link's audio. A queue is what even the least delayed packet waited: the mean also
/// counts jitter, which a receiver whose CPU is starved keeps high with no queue at all. But a
/// paused link sends only its audio: a queue that stands `pausedQueueNotOursAfter` through that,
/// not growing, is another flow's (a download behind the same downlink, other peers' video into
/// it), which no wait of ours drains. Left alone, the link would wait for the meter's baseline to
/// age out (a minute), paused all along; so the queue is taken as the path's own
/// (`queueIsNotOurs`, the owner rebases its meter), and the link probes over it.
struct ProbeController: Sendable {
    /// What to send: `bytes` of padding (about `clusterDuration` at `bitsPerSecond`), its
    /// packets marked `cluster`, at least `minimumPackets` of them.
    struct Cluster: Equatable, Sendable {
        var cluster: Int
        var bitsPerSecond: Double
        var bytes: Int { Int(bitsPerSecond * ProbeController.clusterDuration.milliseconds / 1000 / 8) }
        var minimumPackets: Int { ProbeBitrateEstimator.minimumPackets + 1 }
    }

    static let peakMemory: Duration = .seconds(20)
    /// What the path delivered counts towards the peak once held this long.
    static let sustainedFor: Duration = .seconds(2)
    /// A target under this fraction of the recent peak is a fall...
    static let probeBelowPeak = 0.7
    /// ...after which the link probes while its target is under this fraction of that peak, for
    /// `fallMemory` after the path last delivered it...
    static let probeBelowCarried = 0.9
    static let fallMemory: Duration = .seconds(60)
    /// ...at most this often, with clusters lasting about `clusterDuration`.
    static let probeInterval: Duration = .seconds(1)
    static let clusterDuration: Duration = .milliseconds(40)
    /// A path whose packets wait more than this is not probed: it has no room to show.
    static let clearQueueDelay: Duration = .milliseconds(10)
    static let probeTrial: Duration = .seconds(3)
    static let maximumProbeWait: Duration = .seconds(2)
    /// Reported loss over this fails a probe's trial.
    static let trialLossFraction = 0.02
    /// Paused links probe only while their packets wait less than this in the path's queues...
    static let pausedQueueDelayLimit: Duration = .milliseconds(50)
    /// ...unless such a queue stood this long while the link sent only its audio.
    static let pausedQueueNotOursAfter: Duration = .seconds(5)

    /// What a paused link sends at one rate update: `paddingBytes` of padding, and a cluster
    /// when one is due.
    struct WhilePaused: Equatable, Sendable {
        var paddingBytes: Int
        var cluster: Cluster?
    }

    /// The most the path delivered of late (bits per second, and when).
    private(set) var recentPeakDelivered: (bitsPerSecond: Int, at: Instant)?
    /// The recent peak as it was when the target last fell well under it: what to probe back
    /// towards, even after a long low phase.
    private(set) var carriedBeforeFall: (bitsPerSecond: Int, at: Instant)?
    /// What the path delivered at each of the last updates (`sustainedFor` of them).
    private var deliveredSamples: [(at: Instant, bitsPerSecond: Int)] = []
    private var lastProbeAt: Instant?
    /// The wait before the next probe (doubling after each that failed its trial), and since when
    /// the last one is on trial.
    private(set) var probeWait = ProbeController.probeInterval
    private(set) var onTrialSince: Instant?
    /// Since when a paused link's packets have waited `pausedQueueDelayLimit` or more.
    private var pausedBehindQueueSince: Instant?
    private var nextCluster = 1

    /// Takes one rate update of a link that carries our video (every `updateSpacing`, about):
    /// its target and statistics. `mayProbe`: the link may probe now as far as its owner knows
    /// (its peer sends transport feedback, it is the one of a shared queue that probes, its
    /// encoders want more than the target). The cluster to send, if one is due.
    mutating func afterFall(target: Int, statistics: LinkBandwidthStatistics, updateSpacing: Duration, mayProbe: Bool,
                            now: Instant) -> Cluster? {
        pausedBehindQueueSince = nil
        judge(statistics, now: now)
        // The peak is of what the path delivered (not of the estimate, which overshoots at start),
        // and held for `sustainedFor`: a token bucket lets a burst (a key frame) through at once,
        // which reads as a rate the path cannot keep up.
        if let delivered = sustainedDelivery(statistics.acknowledged, updateSpacing: updateSpacing, now: now),
           recentPeakDelivered.map({ delivered >= $0.bitsPerSecond || now.since($0.at) > Self.peakMemory }) ?? true {
            recentPeakDelivered = (delivered, now)
        }
        if let peak = recentPeakDelivered, Double(target) < Self.probeBelowPeak * Double(peak.bitsPerSecond),
           peak.bitsPerSecond >= carriedBeforeFall?.bitsPerSecond ?? 0 {
            carriedBeforeFall = peak
        }
        if let carried = carriedBeforeFall, now.since(carried.at) > Self.fallMemory { carriedBeforeFall = nil }
        guard mayProbe, let carried = carriedBeforeFall?.bitsPerSecond, Double(target) < Self.probeBelowCarried * Double(carried),
              isDue(now: now), statistics.usage == .normal, (statistics.queueDelay ?? .zero) <= Self.clearQueueDelay else { return nil }
        return start(bitsPerSecond: Double(min(carried, 2 * target)), now: now)
    }

    /// Takes one rate update of a paused link: `wanted`, what resuming needs (bits per second,
    /// its audio included), and `audio`, what its audio takes now. Padding up to the least of the
    /// target and `wanted`, beside the audio, for `updateSpacing`; and a cluster aimed at
    /// `wanted`, at most three times the target, when one is due. Nil while a queue stands or the
    /// path over-uses.
    mutating func whilePaused(target: Int, wanted: Double, audio: Double, statistics: LinkBandwidthStatistics,
                              updateSpacing: Duration, now: Instant) -> WhilePaused? {
        guard statistics.usage != .overusing, (statistics.standingQueueDelay ?? .zero) < Self.pausedQueueDelayLimit else { return nil }
        let padding = max(0, min(Double(target), wanted) - audio)
        judge(statistics, now: now)
        let cluster = Double(target) < wanted && isDue(now: now) ? start(bitsPerSecond: min(wanted, 3 * Double(target)), now: now) : nil
        return WhilePaused(paddingBytes: Int(padding * updateSpacing.milliseconds / 1000 / 8), cluster: cluster)
    }

    /// At a rate update of a paused link: whether the queue its packets wait in has stood,
    /// not growing, for `pausedQueueNotOursAfter` (see above). Then the count starts again.
    mutating func queueIsNotOurs(_ statistics: LinkBandwidthStatistics, now: Instant) -> Bool {
        guard (statistics.standingQueueDelay ?? .zero) >= Self.pausedQueueDelayLimit else {
            pausedBehindQueueSince = nil
            return false
        }
        guard let since = pausedBehindQueueSince else {
            pausedBehindQueueSince = now
            return false
        }
        guard now.since(since) >= Self.pausedQueueNotOursAfter, statistics.usage != .overusing else { return false }
        pausedBehindQueueSince = nil
        return true
    }

    /// No cluster on trial, and the wait since the last one (`probeWait`) is over.
    private func isDue(now: Instant) -> Bool {
        onTrialSince == nil && (lastProbeAt.map { now.since($0) >= probeWait } ?? true)
    }

    private mutating func start(bitsPerSecond: Double, now: Instant) -> Cluster {
        lastProbeAt = now
        onTrialSince = now
        defer { nextCluster += 1 }
        return Cluster(cluster: nextCluster, bitsPerSecond: bitsPerSecond)
    }

    /// The least of what the path delivered over the last `sustainedFor` (samples at each
    /// update), once the samples span it; nil before.
    private mutating func sustainedDelivery(_ acknowledged: Int?, updateSpacing: Duration, now: Instant) -> Int? {
        if let acknowledged { deliveredSamples.append((now, acknowledged)) }
        while let first = deliveredSamples.first, now.since(first.at) > Self.sustainedFor { deliveredSamples.removeFirst() }
        guard let first = deliveredSamples.first, now.since(first.at) >= Self.sustainedFor - updateSpacing else { return nil }
        return deliveredSamples.map(\.bitsPerSecond).min()
    }

    /// The last probe's trial (see above): failed by over-use, a queue or loss within `probeTrial`.
    private mutating func judge(_ statistics: LinkBandwidthStatistics, now: Instant) {
        guard let since = onTrialSince else { return }
        let troubled = statistics.usage == .overusing || (statistics.queueDelay ?? .zero) > LinkBandwidthEstimator.congestedQueueDelay
            || (statistics.lossFraction ?? 0) > Self.trialLossFraction
        if troubled {
            onTrialSince = nil
            probeWait = min(Self.maximumProbeWait, probeWait * 2)
            recentPeakDelivered = statistics.acknowledged.map { ($0, now) }
        } else if now.since(since) >= Self.probeTrial {
            onTrialSince = nil
            probeWait = Self.probeInterval
        }
    }
}
