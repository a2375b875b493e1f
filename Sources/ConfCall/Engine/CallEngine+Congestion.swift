import ConfCore
import ConfSession
import ConfWire

/// Each link's congestion control: every RTP packet we send goes through the link's pacer
/// (audio at once, never behind video) and, when the link negotiated it, carries a transport-wide
/// sequence number stamped as it leaves; the peer's transport feedback, REMB, receiver reports
/// and the RTCP round trip feed the link's estimate. The other way, what the peer sends with
/// transport sequence numbers is recorded and reported back in transport feedback every 100 ms
/// (draft-holmer-rmcat-transport-wide-cc-extensions-01), so that a browser adapts to us too.
/// A peer that negotiated none of it gets the loss-based estimate of its receiver reports.
extension CallEngine {
    // MARK: Sending

    /// The id to stamp on packets of this section, when both sides put the extension in it.
    func transportSequenceID(_ media: NegotiatedMedia?) -> UInt8? {
        configuration.congestionControl ? media?.transportSequenceExtension : nil
    }

    /// Queues plain RTP packets on the link's pacer; audio leaves at once.
    func enqueue(_ packets: [RTPPacket], _ kind: PacedPacket.Kind, on link: Link, transportSequenceID: UInt8?, now: Instant) {
        for packet in packets {
            let paced = PacedPacket(packet: packet, kind: kind, transportSequenceID: transportSequenceID, srtpTagBytes: link.srtpTagBytes)
            link.congestion.enqueue(paced, size: paced.wireSize, priority: paced.priority, now: now)
        }
        pumpPacer(link, now: now)
    }

    /// What the pacer lets out now: stamped, protected, transmitted.
    func pumpPacer(_ link: Link, now: Instant) {
        guard let srtp = link.srtp else { return }
        for (paced, sequence) in link.congestion.poll(now: now, cluster: \.probeCluster) {
            guard let datagram = srtp.protectRTP(paced.wireBytes(transportSequence: sequence)) else { continue }
            link.traffic.sent(paced)
            outputs.append(.transmit(link.id, datagram))
        }
    }

    // MARK: Receiving

    /// Whether we report what the peer sends in transport feedback (both listed transport-cc).
    func sendsTransportFeedback(_ link: Link) -> Bool {
        configuration.congestionControl && link.negotiatesTransportFeedback
    }

    /// An RTP packet from the peer, as read: its transport sequence number, if any, recorded.
    func recordArrival(_ packet: RTPPacket, on link: Link, now: Instant) {
        guard sendsTransportFeedback(link), let negotiated = link.negotiated else { return }
        let section = packet.payloadType == negotiated.video?.payloadType ? negotiated.video : negotiated.audio
        guard let id = section?.transportSequenceExtension ?? negotiated.audio?.transportSequenceExtension ?? negotiated.video?.transportSequenceExtension,
              let bytes = packet.extensions.data(id), let number = TransportSequenceNumber(bytes) else { return }
        if link.feedbackRecorder.mediaSSRC == 0 { link.feedbackRecorder.mediaSSRC = packet.ssrc }
        link.feedbackRecorder.received(sequence: number.sequence, at: now)
    }

    /// The peer's RTCP that speaks of what the path carries: transport feedback, REMB, the loss
    /// its reports give for our streams.
    func receivedCongestionFeedback(_ packets: [RTCPPacket], on link: Link, now: Instant) {
        var lossFraction: UInt8?
        for packet in packets {
            switch packet {
            case .transportFeedback(let feedback):
                guard configuration.congestionControl else { continue }
                let base = link.congestion.sequence(nearest: feedback.baseSequence.rawValue)
                let arrivals = link.feedbackTimeline.arrivals(of: feedback, unwrappedBase: base)
                link.congestion.onFeedback(arrivals, at: now, senderHeldUp: loopLateness.isHeldUp(now: now))
            case .receiverEstimatedMaximumBitrate(let remb):
                link.congestion.onReceiverEstimate(bitsPerSecond: Int(clamping: remb.bitrate), at: now)
            case .senderReport(let report):
                lossFraction = worstLoss(report.blocks, on: link, than: lossFraction)
            case .receiverReport(_, let blocks):
                lossFraction = worstLoss(blocks, on: link, than: lossFraction)
            default:
                break
            }
        }
        // RFC 3550 section 6.4.1: the fraction lost is a fixed-point number, the binary point at its left edge.
        if let lossFraction { link.congestion.onLossReport(fraction: Double(lossFraction) / 256, at: now) }
    }

    /// The RTCP round trip, once measured: for the estimator's timing, and for how long the
    /// video receiver waits for a resend (`InboundVideoStream.setRoundTrip`).
    func tookRoundTrip(on link: Link, now: Instant) {
        guard let roundTrip = link.meter.latest else { return }
        link.congestion.onRoundTrip(roundTrip, at: now)
        link.videoIn?.setRoundTrip(roundTrip)
    }

    private func worstLoss(_ blocks: [RTCPPacket.ReportBlock], on link: Link, than worst: UInt8?) -> UInt8? {
        let ours = blocks.filter { $0.ssrc == link.audioSSRC || $0.ssrc == link.videoSSRC }.map(\.fractionLost)
        guard let highest = ours.max() else { return worst }
        return max(worst ?? 0, highest)
    }

    // MARK: Time

    /// The pacer's next burst and the next transport feedback due, for `nextDeadline()`.
    func considerCongestionDeadlines(of link: Link, in earliest: inout EarliestDeadline) {
        earliest.consider(link.congestion.nextDeadline)
        if sendsTransportFeedback(link) { earliest.consider(link.feedbackRecorder.nextDeadline) }
    }

    /// Runs what is due on a connected link: the pacer, the transport feedback.
    func serviceCongestion(_ link: Link, now: Instant) {
        if let due = link.congestion.nextDeadline, due <= now { pumpPacer(link, now: now) }
        guard sendsTransportFeedback(link) else { return }
        for feedback in link.feedbackRecorder.poll(now: now) { send(.transportFeedback(feedback), on: link) }
    }
}
