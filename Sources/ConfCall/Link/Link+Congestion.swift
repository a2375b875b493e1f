import ConfCore
import ConfSession
import ConfWire

/// The link's congestion control: every RTP packet we send goes through its pacer (audio at
/// once, never behind video) and, when the link negotiated it, carries a transport-wide sequence
/// number stamped as it leaves; the peer's transport feedback, REMB, receiver reports and the
/// RTCP round trip feed its estimate. The other way, what the peer sends with transport sequence
/// numbers is recorded and reported back in transport feedback every 100 ms
/// (draft-holmer-rmcat-transport-wide-cc-extensions-01), so that a browser adapts to us too.
/// A peer that negotiated none of it gets the loss-based estimate of its receiver reports.
/// What leaves goes to the link's outbox.
extension Link {
    // MARK: Sending

    /// The id to stamp on packets of this section, when both sides put the extension in it.
    func transportSequenceID(_ media: NegotiatedMedia?) -> UInt8? {
        congestionControl ? media?.transportSequenceExtension : nil
    }

    /// Queues plain RTP packets on the pacer; audio leaves at once.
    func enqueue(_ packets: [RTPPacket], _ kind: PacedPacket.Kind, transportSequenceID: UInt8?, now: Instant) {
        for packet in packets {
            let paced = PacedPacket(packet: packet, kind: kind, transportSequenceID: transportSequenceID, srtpTagBytes: srtpTagBytes)
            congestion.enqueue(paced, size: paced.wireSize, priority: paced.priority, now: now)
        }
        pumpPacer(now: now)
    }

    /// What the pacer lets out now: stamped, protected, to the outbox.
    func pumpPacer(now: Instant) {
        guard let srtp else { return }
        for (paced, sequence) in congestion.poll(now: now, cluster: \.probeCluster) {
            guard let datagram = srtp.protectRTP(paced.wireBytes(transportSequence: sequence)) else { continue }
            traffic.sent(paced)
            outbox.append(.transmit(id, datagram))
        }
    }

    /// About `bytes` (at least `minimumPackets` packets) of padding-only packets on the probe
    /// SSRC, through the pacer; `cluster` marks them for `ProbeBitrateEstimator`. Returns how
    /// many packets it queued.
    func queuePadding(_ bytes: Int, minimumPackets: Int, cluster: Int?, transportSequenceID id: UInt8, now: Instant) -> Int {
        probeOut.payloadType = negotiated?.video?.payloadType ?? probeOut.payloadType
        var left = bytes, count = 0
        while left > 0 || count < minimumPackets, let packet = probeOut.packetize([[]], duration: 0).first {
            var probe = PacedPacket(packet: packet, kind: .probe, transportSequenceID: id, srtpTagBytes: srtpTagBytes)
            probe.padding = 255
            probe.probeCluster = cluster
            left -= probe.wireSize
            count += 1
            congestion.enqueue(probe, size: probe.wireSize, priority: probe.priority, now: now)
        }
        pumpPacer(now: now)
        return count
    }

    /// An RTCP packet to the peer, protected, to the outbox.
    func sendRTCP(_ report: RTCPPacket) {
        if let packet = srtp?.protectRTCP(report.bytes) { outbox.append(.transmit(id, packet)) }
    }

    // MARK: Receiving

    /// Whether we report what the peer sends in transport feedback (both listed transport-cc).
    var sendsTransportFeedback: Bool {
        congestionControl && negotiatesTransportFeedback
    }

    /// An RTP packet from the peer, as read: its transport sequence number, if any, recorded.
    func recordArrival(_ packet: RTPPacket, now: Instant) {
        guard sendsTransportFeedback, let negotiated else { return }
        let section = packet.payloadType == negotiated.video?.payloadType ? negotiated.video : negotiated.audio
        guard let id = section?.transportSequenceExtension ?? negotiated.audio?.transportSequenceExtension ?? negotiated.video?.transportSequenceExtension,
              let bytes = packet.extensions.data(id), let number = TransportSequenceNumber(bytes) else { return }
        if feedbackRecorder.mediaSSRC == 0 { feedbackRecorder.mediaSSRC = packet.ssrc }
        feedbackRecorder.received(sequence: number.sequence, at: now)
    }

    /// The peer's RTCP that speaks of what the path carries: transport feedback, REMB, the loss
    /// its reports give for our streams. `senderHeldUp`: our loop runs late (`LoopLateness`).
    func receivedCongestionFeedback(_ packets: [RTCPPacket], senderHeldUp: Bool, now: Instant) {
        var lossFraction: UInt8?
        for packet in packets {
            switch packet {
            case .transportFeedback(let feedback):
                guard congestionControl else { continue }
                let base = congestion.sequence(nearest: feedback.baseSequence.rawValue)
                let arrivals = feedbackTimeline.arrivals(of: feedback, unwrappedBase: base)
                congestion.onFeedback(arrivals, at: now, senderHeldUp: senderHeldUp)
            case .receiverEstimatedMaximumBitrate(let remb):
                congestion.onReceiverEstimate(bitsPerSecond: Int(clamping: remb.bitrate), at: now)
            case .senderReport(let report):
                lossFraction = worstLoss(report.blocks, than: lossFraction)
            case .receiverReport(_, let blocks):
                lossFraction = worstLoss(blocks, than: lossFraction)
            default:
                break
            }
        }
        // RFC 3550 section 6.4.1: the fraction lost is a fixed-point number, the binary point at its left edge.
        if let lossFraction { congestion.onLossReport(fraction: Double(lossFraction) / 256, at: now) }
    }

    /// The RTCP round trip, once measured: for the estimator's timing, and for how long the
    /// video receiver waits for a resend (`InboundVideoStream.setRoundTrip`).
    func tookRoundTrip(now: Instant) {
        guard let roundTrip = meter.latest else { return }
        congestion.onRoundTrip(roundTrip, at: now)
        videoIn?.setRoundTrip(roundTrip)
    }

    private func worstLoss(_ blocks: [RTCPPacket.ReportBlock], than worst: UInt8?) -> UInt8? {
        let ours = blocks.filter { $0.ssrc == audioSSRC || $0.ssrc == videoSSRC }.map(\.fractionLost)
        guard let highest = ours.max() else { return worst }
        return max(worst ?? 0, highest)
    }

    // MARK: Time

    /// The pacer's next burst and the next transport feedback due.
    func considerCongestionDeadlines(in earliest: inout EarliestDeadline) {
        earliest.consider(congestion.nextDeadline)
        if sendsTransportFeedback { earliest.consider(feedbackRecorder.nextDeadline) }
    }

    /// Runs what is due on a connected link: the pacer, the transport feedback.
    func serviceCongestion(now: Instant) {
        if let due = congestion.nextDeadline, due <= now { pumpPacer(now: now) }
        guard sendsTransportFeedback else { return }
        for feedback in feedbackRecorder.poll(now: now) { sendRTCP(.transportFeedback(feedback)) }
    }
}
