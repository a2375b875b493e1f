import ConfCore

/// Probes as each link's `ProbeController` asks: after a fall, towards what the link carried
/// before it; on a paused link, padding and clusters towards what resuming needs. The controller
/// decides when and at what rate; here the cluster becomes padding-only packets on the link's
/// probe SSRC (`sendPadding`), and the estimator is told how many went.
extension CallEngine {
    /// Called with every rate update, for each link that carries our video.
    func probeAfterFall(_ link: Link, now: Instant) {
        // Of links that share a queue only the one whose rate they send at probes: each probe takes
        // the others' room, and only that link's estimate lifts them all. Not past what the
        // encoders want, and only where the peer tells us what arrived.
        let id = link.transportSequenceID(link.negotiated?.video)
        let mayProbe = (link.congestion.share == nil || sharedLeast == link.id)
            && Double(link.congestion.target) < Double(configuration.videoBitrateKbps) * 1000 + link.traffic.audioBitsPerSecond
            && id != nil && link.sendsTransportFeedback
        guard let cluster = link.congestion.probeAfterFall(updateSpacing: Self.rateUpdateInterval, mayProbe: mayProbe, now: now),
              let id else { return }
        send(cluster, on: link, transportSequenceID: id, now: now)
    }

    /// A paused link at a rate update: padding that fills its estimate up to what resuming
    /// needs, and now and then a cluster towards it (`ProbeController.whilePaused`). Padding-only
    /// packets (RFC 3550 section 5.1) on a probe SSRC of their own: receivers drop them after
    /// reading their transport sequence number (libwebrtc drops padding-only packets of an
    /// unknown SSRC too).
    func probeWhilePaused(_ link: Link, encoderKbps: Int, now: Instant) {
        guard let id = link.transportSequenceID(link.negotiated?.video), link.sendsTransportFeedback,
              link.congestion.pacer.queuedCount == 0 else { return }
        let base = Double(LinkLayerPolicy.baseLayerKbps(encoderKbps: encoderKbps, layers: encodedLayers(for: link)))
        let wanted = (base * link.forwarding.layerPolicy.resumeMargin * 1.1) * 1000 + link.traffic.audioBitsPerSecond
        guard let probe = link.congestion.probeWhilePaused(wanted: wanted, audio: link.traffic.audioBitsPerSecond,
                                                            updateSpacing: Self.rateUpdateInterval, now: now) else { return }
        sendPadding(probe.paddingBytes, on: link, transportSequenceID: id, now: now)
        if let cluster = probe.cluster { send(cluster, on: link, transportSequenceID: id, now: now) }
    }

    private func send(_ cluster: ProbeController.Cluster, on link: Link, transportSequenceID id: UInt8, now: Instant) {
        let packets = sendPadding(cluster.bytes, minimumPackets: cluster.minimumPackets, cluster: cluster.cluster, on: link,
                                  transportSequenceID: id, now: now)
        // Registered before any feedback on the cluster can be handled: the engine takes no
        // input during this call.
        link.congestion.onProbe(cluster: cluster.cluster, aimedAt: cluster.bitsPerSecond, packets: packets)
    }
}
