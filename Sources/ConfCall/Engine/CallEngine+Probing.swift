import ConfCore

/// Finding lost room again: after a fall (the path was congested, or its capacity dropped and came
/// back) the delay-based estimate grows back by 8 % a second, which takes tens of seconds to climb
/// from a few hundred kbit/s to what the path carried before. libwebrtc probes instead, and so do
/// we: while a link's target is well under the most its path delivered in the last `peakMemory`
/// and the path shows no queue, a short cluster of padding packets goes out at up to twice the target;
/// the rate the receiver got them at (`ProbeBitrateEstimator`) lifts the estimate at once when it
/// is higher. A cluster that meets a queue only reports what the path carries.
extension CallEngine {
    static let peakMemory: Duration = .seconds(20)
    /// A link probes when its target is under this fraction of its recent peak...
    static let probeBelowPeak = 0.7
    /// ...at most this often, with clusters lasting about `probeClusterDuration`.
    static let probeInterval: Duration = .seconds(1)
    static let probeClusterDuration: Duration = .milliseconds(40)
    /// A path whose packets wait more than this is not probed: it has no room to show.
    static let probeClearQueueDelay: Duration = .milliseconds(10)

    /// Called with every rate update, for each link that carries our video.
    func probeAfterFall(_ link: PeerConnection, now: Instant) {
        let target = link.congestion.target
        let statistics = link.congestion.statistics
        // The peak is of what the path delivered (not of the estimate, which overshoots at start).
        if let delivered = statistics.acknowledged,
           link.recentPeakDelivered.map({ delivered >= $0.bitsPerSecond || now.since($0.at) > Self.peakMemory }) ?? true {
            link.recentPeakDelivered = (delivered, now)
        }
        // Links that share a queue are not probed one by one: each probe would take the others' room.
        guard link.congestion.share == nil, let peak = link.recentPeakDelivered,
              Double(target) < Self.probeBelowPeak * Double(peak.bitsPerSecond),
              link.lastProbeAt.map({ now.since($0) >= Self.probeInterval }) ?? true,
              Double(target) < Double(configuration.videoBitrateKbps) * 1000 + link.traffic.audioBitsPerSecond,
              let id = transportSequenceID(link.negotiated?.video), sendsTransportFeedback(link),
              statistics.usage == .normal, (statistics.queueDelay ?? .zero) <= Self.probeClearQueueDelay else { return }
        link.lastProbeAt = now
        let rate = Double(min(peak.bitsPerSecond, 2 * target))
        let cluster = link.nextProbeCluster
        link.nextProbeCluster += 1
        sendPadding(Int(rate * Self.probeClusterDuration.milliseconds / 1000 / 8), minimumPackets: ProbeBitrateEstimator.minimumPackets + 1,
                    cluster: cluster, on: link, transportSequenceID: id, now: now)
    }
}
