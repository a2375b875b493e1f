/// RTCP sender and receiver reports (RFC 3550 section 6.4), the feedback messages conf reads
/// (RFC 4585: NACK, PLI; transport-wide feedback, REMB); other packet types are kept as their
/// type and skipped. A compound packet is parsed into its parts.
///
///     SR:  V=2|P|RC|PT=200|length ; SSRC ; NTP msw ; NTP lsw ; RTP ts ; packets ; octets ; blocks
///     RR:  V=2|P|RC|PT=201|length ; SSRC ; blocks
///     report block (24 bytes): SSRC ; fraction lost(8) + cumulative lost(24) ; highest seq ;
///                              jitter ; LSR ; DLSR
public enum RTCPPacket: Equatable, Sendable {
    case senderReport(SenderReport)
    case receiverReport(ssrc: SSRC, blocks: [ReportBlock])
    /// "Send me a key frame" for the stream `media` (RFC 4585 section 6.3.1: PSFB, FMT 1).
    case pictureLossIndication(sender: SSRC, media: SSRC)
    /// "These packets of `media` did not arrive" (RFC 4585 section 6.2.1: RTPFB, FMT 1). Each FCI
    /// entry is a packet id and a bitmask of the 16 that follow it.
    case negativeAcknowledgement(sender: SSRC, media: SSRC, lost: [SequenceNumber])
    /// Which packets of the transport arrived and when (transport-wide congestion control:
    /// RTPFB, FMT 15).
    case transportFeedback(TransportFeedback)
    /// The receiver's estimate of the bitrate it can take (REMB: PSFB, FMT 15, "REMB").
    case receiverEstimatedMaximumBitrate(ReceiverEstimatedMaximumBitrate)
    /// Any other packet type, or a feedback message conf does not read (or could not: a transport
    /// feedback whose chunks or deltas are cut short stays `.other(packetType: 205)`).
    case other(packetType: UInt8)

    public struct SenderReport: Equatable, Sendable {
        public var ssrc: SSRC
        /// 32.32 fixed point; conf uses its monotonic clock, since only the sender reads it back.
        public var ntpTimestamp: UInt64
        public var rtpTimestamp: UInt32
        public var packetCount: UInt32
        public var octetCount: UInt32
        public var blocks: [ReportBlock]

        public init(ssrc: SSRC, ntpTimestamp: UInt64, rtpTimestamp: UInt32 = 0, packetCount: UInt32 = 0, octetCount: UInt32 = 0,
                    blocks: [ReportBlock] = []) {
            self.ssrc = ssrc
            self.ntpTimestamp = ntpTimestamp
            self.rtpTimestamp = rtpTimestamp
            self.packetCount = packetCount
            self.octetCount = octetCount
            self.blocks = blocks
        }
    }

    public struct ReportBlock: Equatable, Sendable {
        public var ssrc: SSRC
        public var fractionLost: UInt8
        public var cumulativeLost: UInt32
        public var highestSequence: UInt32
        public var jitter: UInt32
        /// The middle 32 bits of the NTP timestamp of the last SR received from `ssrc`.
        public var lastSR: UInt32
        /// Time since that SR, in units of 1/65536 s.
        public var delaySinceLastSR: UInt32

        public init(ssrc: SSRC, fractionLost: UInt8 = 0, cumulativeLost: UInt32 = 0, highestSequence: UInt32 = 0, jitter: UInt32 = 0,
                    lastSR: UInt32, delaySinceLastSR: UInt32) {
            self.ssrc = ssrc
            self.fractionLost = fractionLost
            self.cumulativeLost = cumulativeLost
            self.highestSequence = highestSequence
            self.jitter = jitter
            self.lastSR = lastSR
            self.delaySinceLastSR = delaySinceLastSR
        }
    }

    /// The packets of a compound RTCP packet; nil when the framing is broken anywhere (RFC 3550
    /// section 6.1: the lengths must add up exactly).
    public static func parseCompound(_ bytes: [UInt8]) -> [RTCPPacket]? {
        var packets: [RTCPPacket] = []
        var offset = 0
        while offset < bytes.count {
            guard bytes.count - offset >= 4, bytes[offset] >> 6 == 2 else { return nil }
            let count = Int(bytes[offset] & 0x1F)
            let type = bytes[offset + 1]
            let length = (Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3]) + 1) * 4
            guard offset + length <= bytes.count else { return nil }
            let body = Array(bytes[(offset + 4)..<(offset + length)])
            switch type {
            case 200:
                guard body.count >= 24 + count * 24 else { return nil }
                let sr = SenderReport(
                    ssrc: SSRC(u32(body, 0)), ntpTimestamp: UInt64(u32(body, 4)) << 32 | UInt64(u32(body, 8)), rtpTimestamp: u32(body, 12),
                    packetCount: u32(body, 16), octetCount: u32(body, 20), blocks: (0..<count).map { block(body, 24 + $0 * 24) })
                packets.append(.senderReport(sr))
            case 201:
                guard body.count >= 4 + count * 24 else { return nil }
                packets.append(.receiverReport(ssrc: SSRC(u32(body, 0)), blocks: (0..<count).map { block(body, 4 + $0 * 24) }))
            case 205 where count == 1:  // RTPFB, FMT 1: generic NACK
                guard body.count >= 12 else { return nil }
                var lost: [SequenceNumber] = []
                for entry in stride(from: 8, to: body.count - 3, by: 4) {
                    let pid = SequenceNumber(UInt16(body[entry]) << 8 | UInt16(body[entry + 1]))
                    let mask = UInt16(body[entry + 2]) << 8 | UInt16(body[entry + 3])
                    lost.append(pid)
                    for bit in 0..<16 where mask & (1 << bit) != 0 { lost.append(pid &+ UInt16(bit + 1)) }
                }
                packets.append(.negativeAcknowledgement(sender: SSRC(u32(body, 0)), media: SSRC(u32(body, 4)), lost: lost))
            case 205 where count == 15:  // RTPFB, FMT 15: transport-wide feedback
                packets.append(TransportFeedback(rtcpBody: body, padded: bytes[offset] & 0x20 != 0).map { .transportFeedback($0) } ?? .other(packetType: type))
            case 206 where count == 15:  // PSFB, FMT 15: application layer feedback, of which conf reads REMB
                packets.append(ReceiverEstimatedMaximumBitrate(rtcpBody: body).map { .receiverEstimatedMaximumBitrate($0) } ?? .other(packetType: type))
            case 206 where count == 1:  // for PSFB the count field is the FMT
                guard body.count >= 8 else { return nil }
                packets.append(.pictureLossIndication(sender: SSRC(u32(body, 0)), media: SSRC(u32(body, 4))))
            default:
                packets.append(.other(packetType: type))
            }
            offset += length
        }
        return packets.isEmpty ? nil : packets
    }

    public var bytes: [UInt8] {
        var body: [UInt8] = []
        let type: UInt8
        let blocks: [ReportBlock]
        switch self {
        case .senderReport(let sr):
            type = 200
            blocks = sr.blocks
            for word in [sr.ssrc.rawValue, UInt32(sr.ntpTimestamp >> 32), UInt32(truncatingIfNeeded: sr.ntpTimestamp), sr.rtpTimestamp,
                         sr.packetCount, sr.octetCount] { append(word, to: &body) }
        case .receiverReport(let ssrc, let b):
            type = 201
            blocks = b
            append(ssrc.rawValue, to: &body)
        case .pictureLossIndication(let sender, let media):
            append(sender.rawValue, to: &body)
            append(media.rawValue, to: &body)
            return [0x81, 206, 0, 2] + body
        case .negativeAcknowledgement(let sender, let media, let lost):
            append(sender.rawValue, to: &body)
            append(media.rawValue, to: &body)
            var remaining = lost
            while let pid = remaining.first {
                var mask: UInt16 = 0
                remaining.removeFirst()
                remaining.removeAll { sequence in
                    let distance = pid.distance(to: sequence)
                    guard distance >= 1 && distance <= 16 else { return false }
                    mask |= 1 << (distance - 1)
                    return true
                }
                append(UInt32(pid.rawValue) << 16 | UInt32(mask), to: &body)
            }
            let words = body.count / 4
            return [0x81, 205, UInt8(words >> 8), UInt8(words & 0xFF)] + body
        case .transportFeedback(let feedback):
            return feedback.bytes
        case .receiverEstimatedMaximumBitrate(let remb):
            return remb.bytes
        case .other:
            return []
        }
        for block in blocks.prefix(31) {
            append(block.ssrc.rawValue, to: &body)
            append(UInt32(block.fractionLost) << 24 | (block.cumulativeLost & 0xFF_FFFF), to: &body)
            for word in [block.highestSequence, block.jitter, block.lastSR, block.delaySinceLastSR] { append(word, to: &body) }
        }
        let words = body.count / 4
        return [0x80 | UInt8(min(blocks.count, 31)), type, UInt8(words >> 8), UInt8(words & 0xFF)] + body
    }

    private static func u32(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
    }

    private static func block(_ b: [UInt8], _ i: Int) -> ReportBlock {
        ReportBlock(ssrc: SSRC(u32(b, i)), fractionLost: b[i + 4], cumulativeLost: u32(b, i + 4) & 0xFF_FFFF, highestSequence: u32(b, i + 8),
                    jitter: u32(b, i + 12), lastSR: u32(b, i + 16), delaySinceLastSR: u32(b, i + 20))
    }

    private func append(_ word: UInt32, to out: inout [UInt8]) {
        out += [UInt8(word >> 24), UInt8(word >> 16 & 0xFF), UInt8(word >> 8 & 0xFF), UInt8(word & 0xFF)]
    }
}
