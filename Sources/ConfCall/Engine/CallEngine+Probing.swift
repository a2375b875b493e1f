import ConfCore

/// Finding lost room again: after a fall (the path was congested, or its capacity dropped and came
/// back) the delay-based estimate grows back by 8 % a second, which takes tens of seconds to climb
/// from a few hundred kbit/s to what the path carried before. libwebrtc probes instead, and so do
/// we. A fall is the target going under `probeBelowPeak` of the most the path delivered in the
/// last `peakMemory`; that peak is then kept as what the link carried before the fall, for
/// `fallMemory` after the path last delivered it. While the target is under `probeBelowCarried`
/// of it and the path shows no queue, a short cluster of padding packets goes out towards it, at
/// up to twice the target; the rate the receiver got them at (`ProbeBitrateEstimator`) lifts the
/// estimate at once when it is higher. A cluster that meets a queue only reports what the path
/// carries. Without the memory, a link that carried all its encoders wanted (650 kbit/s on a 2
/// Mbit/s path) grew back from a 500 kbit/s phase at 8 % a second: 5-6 s.
///
/// A shaper's token bucket (`tc tbf`, many ISPs' and routers' rate limits) lets a short cluster
/// through at once, so a probe can report room the path does not have (half as much again as
/// the bucket's rate). So each probe is on trial for
/// `probeTrial`: if the path over-uses, queues or loses in that time, the recent peak becomes
/// what the path delivers now and the wait before the next probe doubles, up to
/// `maximumProbeWait`; a trial passed resets the wait. That wait is short (libwebrtc probes an
/// application-limited link every 5 s): in a low phase the trials fail by the estimate's own
/// saw-tooth, and the wait is then what stands between capacity coming back and the link finding
/// it (BENCHMARKS "Probing back to what a link carried").
extension CallEngine {
    static let peakMemory: Duration = .seconds(20)
    /// What the path delivered counts towards the peak once held this long.
    static let sustainedFor: Duration = .seconds(2)
    /// A target under this fraction of the recent peak is a fall...
    static let probeBelowPeak = 0.7
    /// ...after which the link probes while its target is under this fraction of that peak, for
    /// `fallMemory` after the path last delivered it...
    static let probeBelowCarried = 0.9
    static let fallMemory: Duration = .seconds(60)
    /// ...at most this often, with clusters lasting about `probeClusterDuration`.
    static let probeInterval: Duration = .seconds(1)
    static let probeClusterDuration: Duration = .milliseconds(40)
    /// A path whose packets wait more than this is not probed: it has no room to show.
    static let probeClearQueueDelay: Duration = .milliseconds(10)
    static let probeTrial: Duration = .seconds(3)
    static let maximumProbeWait: Duration = .seconds(2)
    /// Reported loss over this fails a probe's trial.
    static let probeTrialLossFraction = 0.02

    /// Called with every rate update, for each link that carries our video.
    func probeAfterFall(_ link: PeerConnection, now: Instant) {
        let target = link.congestion.target
        let statistics = link.congestion.statistics
        judgeProbe(link, statistics: statistics, now: now)
        // The peak is of what the path delivered (not of the estimate, which overshoots at start),
        // and held for `sustainedFor`: a token bucket lets a burst (a key frame) through at once,
        // which reads as a rate the path cannot keep up.
        if let delivered = sustainedDelivery(link, acknowledged: statistics.acknowledged, now: now),
           link.recentPeakDelivered.map({ delivered >= $0.bitsPerSecond || now.since($0.at) > Self.peakMemory }) ?? true {
            link.recentPeakDelivered = (delivered, now)
        }
        if let peak = link.recentPeakDelivered, Double(target) < Self.probeBelowPeak * Double(peak.bitsPerSecond),
           peak.bitsPerSecond >= link.carriedBeforeFall?.bitsPerSecond ?? 0 {
            link.carriedBeforeFall = peak
        }
        if let carried = link.carriedBeforeFall, now.since(carried.at) > Self.fallMemory { link.carriedBeforeFall = nil }
        // Of links that share a queue only the one whose rate they send at probes: each probe takes
        // the others' room, and only that link's estimate lifts them all.
        guard link.congestion.share == nil || sharedLeast == link.id, let carried = link.carriedBeforeFall?.bitsPerSecond,
              Double(target) < Self.probeBelowCarried * Double(carried),
              probeIsDue(link, now: now),
              Double(target) < Double(configuration.videoBitrateKbps) * 1000 + link.traffic.audioBitsPerSecond,
              let id = transportSequenceID(link.negotiated?.video), sendsTransportFeedback(link),
              statistics.usage == .normal, (statistics.queueDelay ?? .zero) <= Self.probeClearQueueDelay else { return }
        sendProbeCluster(link, bitsPerSecond: Double(min(carried, 2 * target)), transportSequenceID: id, now: now)
    }

    /// A paused link's way back, beside its steady padding (`probe` in +Rates): a cluster aimed
    /// at what resuming needs, at most three times the target, on the schedule and trial of the
    /// probes after a fall. The padding fills only the estimate there is, which then grows by
    /// AIMD's 8 % a second at best, and any over-use signal on a jittery path undoes that.
    func probeTowardsResume(_ link: PeerConnection, wantedBitsPerSecond wanted: Double, transportSequenceID id: UInt8, now: Instant) {
        let target = Double(link.congestion.target)
        judgeProbe(link, statistics: link.congestion.statistics, now: now)
        guard target < wanted, probeIsDue(link, now: now) else { return }
        sendProbeCluster(link, bitsPerSecond: min(wanted, 3 * target), transportSequenceID: id, now: now)
    }

    /// No cluster on trial, and the wait since the last one (`probeWait`) is over.
    private func probeIsDue(_ link: PeerConnection, now: Instant) -> Bool {
        link.probeOnTrialSince == nil && (link.lastProbeAt.map { now.since($0) >= link.probeWait } ?? true)
    }

    /// One cluster of padding lasting about `probeClusterDuration` at `bitsPerSecond`, put on trial.
    private func sendProbeCluster(_ link: PeerConnection, bitsPerSecond rate: Double, transportSequenceID id: UInt8, now: Instant) {
        link.lastProbeAt = now
        link.probeOnTrialSince = now
        let cluster = link.nextProbeCluster
        link.nextProbeCluster += 1
        let packets = sendPadding(Int(rate * Self.probeClusterDuration.milliseconds / 1000 / 8),
                                  minimumPackets: ProbeBitrateEstimator.minimumPackets + 1, cluster: cluster, on: link,
                                  transportSequenceID: id, now: now)
        // Registered before any feedback on the cluster can be handled: the engine takes no
        // input during this call.
        link.congestion.onProbe(cluster: cluster, aimedAt: rate, packets: packets)
    }

    /// The least of what the path delivered over the last `sustainedFor` (samples at each rate
    /// update), once the samples span it; nil before.
    private func sustainedDelivery(_ link: PeerConnection, acknowledged: Int?, now: Instant) -> Int? {
        if let acknowledged { link.deliveredSamples.append((now, acknowledged)) }
        while let first = link.deliveredSamples.first, now.since(first.at) > Self.sustainedFor { link.deliveredSamples.removeFirst() }
        guard let first = link.deliveredSamples.first, now.since(first.at) >= Self.sustainedFor - Self.rateUpdateInterval else { return nil }
        return link.deliveredSamples.map(\.bitsPerSecond).min()
    }

    /// The last probe's trial (see above): failed by over-use, a queue or loss within `probeTrial`.
    private func judgeProbe(_ link: PeerConnection, statistics: LinkBandwidthStatistics, now: Instant) {
        guard let since = link.probeOnTrialSince else { return }
        let troubled = statistics.usage == .overusing || (statistics.queueDelay ?? .zero) > LinkBandwidthEstimator.congestedQueueDelay
            || (statistics.lossFraction ?? 0) > Self.probeTrialLossFraction
        if troubled {
            link.probeOnTrialSince = nil
            link.probeWait = min(Self.maximumProbeWait, link.probeWait * 2)
            link.recentPeakDelivered = statistics.acknowledged.map { ($0, now) }
        } else if now.since(since) >= Self.probeTrial {
            link.probeOnTrialSince = nil
            link.probeWait = Self.probeInterval
        }
    }
}
