import ConfCore
import ConfSession
import ConfWire

/// What the links' estimates ask of the encoders, five times a second: the video encoder's
/// target (the best link's budget, links sharing our uplink as one), each link's layers and
/// pauses, Opus from the worst link, and padding probes on paused links so that their estimate
/// can grow back.
extension CallEngine {
    static let rateUpdateInterval: Duration = .milliseconds(200)
    /// The least the video encoder is asked for, kbit/s: below it VP8 makes pictures not worth
    /// sending, so a link that cannot carry this much's base layer is paused instead.
    static let minimumVideoKbps = 100
    /// The least the small encoding is asked for, kbit/s (a quarter of the pixels).
    static let minimumSmallVideoKbps = 50
    /// Opus's range (kbit/s) as the links allow it.
    static let audioKbpsRange = 16...64
    /// A link is presumed to share our uplink only while its own estimate is at least this
    /// fraction of the best link's (`shareBottleneck`).
    static let presumedShareFloor = 0.5

    func serviceRates(now: Instant) {
        guard hasConnectedPeer else { return }
        if let due = nextRateUpdateAt, now < due { return }
        nextRateUpdateAt = now + Self.rateUpdateInterval
        updateRates(now: now)
    }

    private func updateRates(now: Instant) {
        for link in linksInOrder where link.phase == .connected {
            link.recentResendBitsPerSecond = link.retransmissions.resentBitsPerSecond(now: now)
            guard let incoming = link.traffic.updateReceivedRate(now: now) else { continue }
            // A link that brought video or probes within 2 s keeps the 100 ms: its sender ramps
            // up and probes on our feedback (at 250 ms a paused link came back too late).
            let bringsVideo = link.traffic.lastNonAudioArrival.map { now.since($0) < .seconds(2) } ?? false
            link.feedbackRecorder.interval = bringsVideo ? TransportFeedbackRecorder.defaultInterval
                : TransportFeedbackRecorder.interval(forIncoming: incoming)
        }
        shareBottleneck(now: now)
        if configuration.congestionControl { shareDownlink(now: now) }
        let encoderKbps = updateLayers(now: now)
        for link in linksInOrder where link.phase == .connected {
            link.audioPackets.follow(weak: link.forwarding.paused, peerMaxPacketTime: link.negotiated?.audio?.remoteMaxPacketTime)
        }
        askVideoBitrate(encoderKbps, now: now)
        askAudioEncoding(now: now)
        for link in videoLinks {
            let small = link.forwarding.chosenEncoding == .small ? outgoingVideo.smallAsked?.kbps : nil
            if link.forwarding.paused { probeWhilePaused(link, encoderKbps: small ?? encoderKbps, now: now) } else { probeAfterFall(link, now: now) }
        }
    }

    /// Links that go through one queue all send at one rate (`SharedBottleneck`); the others
    /// each follow their own. The links that get our video are taken to share our uplink until
    /// one is seen apart: they carry one encoding, so a link whose estimate drifts under the
    /// others' gets fewer of its layers, sends less, and its estimate (bounded by what it sends)
    /// drifts further. Not one whose own estimate is under `presumedShareFloor` of the best: it is
    /// held somewhere else, as behind a weak peer's downlink that bounds it by REMB with no queue
    /// to show, and would hold the others to its rate.
    ///
    /// The rate is the least of the group's estimates, over the links that get our video and have
    /// been up `shareSettling` (not an audio-only link's, whose estimate cannot grow past what its
    /// audio sends, nor a new link's start). Every link in the group sends at it, even one whose
    /// own estimate is under it for a moment (it will be the least at the next update): links of
    /// one encoding at different rates get different layers (with a receiver's REMB left out of
    /// the least, one link went to the small encoding on its own). Not the mean: each link's
    /// controller sees the one queue, and the first to see it fill cuts its estimate; a mean
    /// passed on a third of that cut, so the queue grew on until all three had cut (a simulated
    /// 1 Mbit/s uplink's queue peaked at 150-160 ms with the mean, under 100 ms with the least).
    private func shareBottleneck(now: Instant) {
        let connected = linksInOrder.filter { $0.phase == .connected }
        sharedBottleneck.record(connected.map { ($0.id, $0.congestion.statistics.queueDelay) }, now: now)
        let sending = configuration.sendsVideo ? videoLinks : []
        let presumed = Self.presumedSharing(sending.map { ($0.id, $0.congestion.estimator.target) })
        let group = sharedBottleneck.group(now: now, presuming: presumed)
        let members = connected.filter { group.contains($0.id) }
        let settled = members.filter { link in
            presumed.contains(link.id) && link.isUp(for: Self.shareSettling, now: now)
        }
        let least = (settled.isEmpty ? members : settled).min { $0.congestion.estimator.target < $1.congestion.estimator.target }
        sharedLeast = least?.id
        let share = least?.congestion.estimator.target
        for link in connected { link.congestion.share(group.contains(link.id) ? share : nil, now: now) }
    }

    static let shareSettling: Duration = .seconds(5)

    /// Of the links that get our video (with their own estimates), those presumed to share our uplink.
    static func presumedSharing(_ estimates: [(id: ParticipantID, bitsPerSecond: Int)]) -> [ParticipantID] {
        let best = estimates.map(\.bitsPerSecond).max() ?? 0
        return estimates.filter { Double($0.bitsPerSecond) >= presumedShareFloor * Double(best) }.map(\.id)
    }

    private func askVideoBitrate(_ kbps: Int, now: Instant) {
        guard configuration.sendsVideo, !videoLinks.isEmpty, outgoingVideo.askFull(kbps, now: now) else { return }
        outputs.append(.videoBitrate(kbps: kbps))
    }

    /// The small encoding's target (`OutgoingVideo.askSmall`); nil stops it.
    func askSmallVideoBitrate(_ kbps: Int?, now: Instant) {
        if let change = outgoingVideo.askSmall(kbps, now: now) { outputs.append(.smallVideoBitrate(kbps: change)) }
    }

    /// Opus from the worst link: an eighth of its estimate within 16...64 kbit/s (never above the
    /// configured bitrate), FEC on and the expected loss set from the loss it reports.
    private func askAudioEncoding(now: Instant) {
        guard configuration.sendsAudio else { return }
        let audioLinks = linksInOrder.filter { $0.phase == .connected && $0.negotiated?.audio?.sends == true }
        guard let worst = audioLinks.map(\.congestion.target).min() else { return }
        let ceiling = min(Self.audioKbpsRange.upperBound, max(Self.audioKbpsRange.lowerBound, configuration.audioBitrateKbps))
        let kbps = min(ceiling, max(Self.audioKbpsRange.lowerBound, worst / 8 / 1000))
        let loss = audioLinks.compactMap { $0.congestion.statistics.lossFraction }.max() ?? 0
        let lossPercent = min(30, Int((loss * 100).rounded()))
        let fec = lossPercent >= 1
        if let asked = audioEncodingAsked {
            let same = asked.bitrateKbps == kbps && asked.fec == fec && abs(asked.lossPercent - lossPercent) < 2
            guard !same, now.since(asked.at) >= OutgoingVideo.updateInterval else { return }
        }
        audioEncodingAsked = (kbps, fec, lossPercent, now)
        outputs.append(.audioEncoding(bitrateKbps: kbps, fec: fec, expectedLossPercent: lossPercent))
    }

    /// Padding through the link's pacer (`Link.queuePadding`); how many packets it queued.
    @discardableResult
    func sendPadding(_ bytes: Int, minimumPackets: Int = 0, cluster: Int? = nil, on link: Link, transportSequenceID id: UInt8,
                     now: Instant) -> Int {
        let count = link.queuePadding(bytes, minimumPackets: minimumPackets, cluster: cluster, transportSequenceID: id, now: now)
        flush(link)
        return count
    }
}
