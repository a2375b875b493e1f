import ConfCore
import ConfSession
import ConfWire

/// `link-stats`: per connected link, what its congestion control sees, with `--stats`.
extension CallEngine {
    func reportLinkStatistics(now: Instant) {
        var figures: [CallEvent.LinkStatistics] = []
        for link in linksInOrder where link.phase == .connected {
            let statistics = link.congestion.statistics
            figures.append(.init(peer: link.id, estimateKbps: Double(statistics.target) / 1000, sentKbps: link.traffic.sentRate(now: now) / 1000,
                                 roundTrip: statistics.roundTrip ?? link.meter.latest, lossPercent: (statistics.lossFraction ?? 0) * 100,
                                 queueDelay: statistics.queueDelay ?? .zero, videoLayers: forwardedLayers(link),
                                 videoEncoding: link.forwarding.chosenEncoding, audioPacketMilliseconds: 20 * link.audioPackets.framesPerPacket,
                                 sharedKbps: link.congestion.share.map { Double($0) / 1000 }))
        }
        if !figures.isEmpty { outputs.append(.event(.linkStats(figures))) }
    }
}

extension CallEngine {
    /// What the link to `id`'s congestion control knows now; nil without a connected link.
    public func congestionStatistics(_ id: ParticipantID) -> LinkBandwidthStatistics? {
        guard let link = peerSlots[id]?.link, link.phase == .connected else { return nil }
        return link.congestion.statistics
    }

    /// The temporal layers the link to `id` is sent now (0 while its video is paused).
    public func videoLayers(_ id: ParticipantID) -> Int? {
        peerSlots[id]?.link.map(forwardedLayers)
    }
}
