import ConfCore
import ConfWire

/// Round-trip time from RTCP (RFC 3550 section 6.4.1): we stamp our sender reports with our
/// clock; the peer echoes the stamp (LSR) and how long it held it (DLSR) in a report block; the
/// difference is the round trip. The peer's SRs are answered at once, so that the first
/// measurement needs a single round trip. Pure: the caller moves the packets.
public struct RoundTripMeter: Sendable {
    public let localSSRC: SSRC
    /// The peer's last SR: its SSRC, the middle 32 bits of its stamp, and when it came.
    private var lastPeerReport: (ssrc: SSRC, stamp: UInt32, at: Instant)?
    public private(set) var latest: Duration?

    public init(localSSRC: SSRC) { self.localSSRC = localSSRC }

    /// A 32.32 fixed-point "NTP" stamp of `now` (our monotonic clock).
    static func stamp(_ now: Instant) -> UInt64 {
        let seconds = now.nanoseconds / 1_000_000_000
        let fraction = (now.nanoseconds % 1_000_000_000) << 32 / 1_000_000_000
        return seconds << 32 | fraction
    }

    /// A sender report to send now (with a block for the peer when we have heard one).
    public func senderReport(now: Instant) -> RTCPPacket {
        .senderReport(.init(ssrc: localSSRC, ntpTimestamp: Self.stamp(now), blocks: block(now: now).map { [$0] } ?? []))
    }

    /// A receiver report to send now.
    public func receiverReport(now: Instant) -> RTCPPacket {
        .receiverReport(ssrc: localSSRC, blocks: block(now: now).map { [$0] } ?? [])
    }

    /// A full report: SR when we sent media (`sent` = packets, octets, the RTP timestamp of now),
    /// else RR; the block describes `reception` when we receive media, with our LSR/DLSR.
    public func report(now: Instant, sent: (packets: UInt32, octets: UInt32, rtpTimestamp: UInt32)?,
                       reception: inout ReceptionStatistics?) -> RTCPPacket {
        var blocks: [RTCPPacket.ReportBlock] = []
        let echo = block(now: now)
        if reception != nil {
            blocks.append(reception!.reportBlock(lastSR: echo?.lastSR ?? 0, delaySinceLastSR: echo?.delaySinceLastSR ?? 0))
        } else if let echo {
            blocks.append(echo)
        }
        guard let sent else { return .receiverReport(ssrc: localSSRC, blocks: blocks) }
        return .senderReport(.init(ssrc: localSSRC, ntpTimestamp: Self.stamp(now), rtpTimestamp: sent.rtpTimestamp,
                                   packetCount: sent.packets, octetCount: sent.octets, blocks: blocks))
    }

    /// Takes a received compound packet. Returns a receiver report to send back at once when the
    /// peer sent a sender report (so it can measure), else nil.
    public mutating func received(_ packets: [RTCPPacket], now: Instant) -> RTCPPacket? {
        var answer = false
        for packet in packets {
            switch packet {
            case .senderReport(let sr):
                lastPeerReport = (sr.ssrc, UInt32(truncatingIfNeeded: sr.ntpTimestamp >> 16), now)
                measure(sr.blocks, now: now)
                answer = true
            case .receiverReport(_, let blocks):
                measure(blocks, now: now)
            case .other, .pictureLossIndication, .negativeAcknowledgement, .transportFeedback, .receiverEstimatedMaximumBitrate:
                break
            }
        }
        return answer ? receiverReport(now: now) : nil
    }

    private mutating func measure(_ blocks: [RTCPPacket.ReportBlock], now: Instant) {
        guard let block = blocks.first(where: { $0.ssrc == localSSRC }), block.lastSR != 0 else { return }
        let nowMiddle = UInt32(truncatingIfNeeded: Self.stamp(now) >> 16)
        let units = nowMiddle &- block.lastSR &- block.delaySinceLastSR  // 1/65536 s
        guard units < 65_536 * 60 else { return }  // nonsense (clock skew or a forged block)
        latest = .nanoseconds(Int64(units) * 1_000_000_000 / 65_536)
    }

    private func block(now: Instant) -> RTCPPacket.ReportBlock? {
        guard let last = lastPeerReport else { return nil }
        let held = UInt32(min(UInt64(UInt32.max), UInt64(now.since(last.at).nanosecondsClamped) * 65_536 / 1_000_000_000))
        return RTCPPacket.ReportBlock(ssrc: last.ssrc, lastSR: last.stamp, delaySinceLastSR: held)
    }
}
