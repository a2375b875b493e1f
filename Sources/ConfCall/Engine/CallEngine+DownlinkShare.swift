import ConfCore
import ConfWire

/// Our downlink, shared fairly among the peers that send to us. Every sender runs its own
/// controller, and behind one queue (our downlink) the one that grew first keeps the queue the
/// others' delay detectors see, so they stay at their floor: the end-to-end run behind a 300
/// kbit/s downlink had one link at 85 kbit/s and two at 31. We see the whole downlink, so we act:
/// when the peers' audio queues together (`SharedBottleneck` over `InboundQueueDelay`, as for
/// our uplink), each of them is sent a REMB (draft-alvestrand-rmcat-remb-03) with an even share
/// of what arrives from them together, `downlinkHeadroom` above it so that the total can grow;
/// senders take the least of their own estimate and a REMB. When the evidence is gone, a last
/// REMB lifts the bound (`liftedEstimate`).
extension CallEngine {
    static let downlinkHeadroom = 1.15
    static let minimumDownlinkShare = 60_000
    static let liftedEstimate: UInt64 = 100_000_000
    /// A share is sent again when it moved by this fraction, or after `receiverEstimateRefresh`.
    static let receiverEstimateChange = 0.05
    static let receiverEstimateRefresh: Duration = .seconds(1)

    /// Called with every rate update.
    func shareDownlink(now: Instant) {
        let connected = linksInOrder.filter { $0.phase == .connected }
        downlinkBottleneck.record(connected.map { ($0.id, $0.incomingQueue.queueDelay(now: now)) }, now: now)
        let group = downlinkBottleneck.group(now: now)
        let members = connected.filter { group.contains($0.id) }
        let arriving = members.compactMap(\.traffic.receivedBitsPerSecond).reduce(0, +)
        let share = members.isEmpty ? nil : max(Double(Self.minimumDownlinkShare), arriving / Double(members.count) * Self.downlinkHeadroom)
        let sharing = share != nil
        if sharing != downlinkShared {
            downlinkShared = sharing
            outputs.append(.note(.downlinkShared(peers: sharing ? members.count : nil)))
        }
        for link in connected {
            if group.contains(link.id), let share {
                sendReceiverEstimate(UInt64(share), on: link, now: now)
            } else if link.downlinkShareSent != nil {
                sendReceiverEstimate(Self.liftedEstimate, on: link, now: now)
            }
        }
    }

    private func sendReceiverEstimate(_ bitsPerSecond: UInt64, on link: Link, now: Instant) {
        if bitsPerSecond != Self.liftedEstimate, let last = link.downlinkShareSent, now.since(last.at) < Self.receiverEstimateRefresh,
           abs(Double(bitsPerSecond) - Double(last.bitsPerSecond)) < Double(last.bitsPerSecond) * Self.receiverEstimateChange { return }
        let ssrcs = [link.audioIn?.rtp.ssrc, link.videoIn?.rtp.ssrc].compactMap { $0 }
        send(.receiverEstimatedMaximumBitrate(.init(senderSSRC: link.audioSSRC, bitrate: bitsPerSecond, ssrcs: ssrcs)), on: link)
        link.downlinkShareSent = bitsPerSecond == Self.liftedEstimate ? nil : (bitsPerSecond, now)
    }
}
