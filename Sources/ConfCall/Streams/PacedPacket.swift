import ConfWire

/// One RTP packet waiting in a link's pacer, plain (before SRTP). Its transport-wide sequence
/// number is stamped only as it leaves (`wireBytes(transportSequence:)`), so that the numbers
/// follow the order on the wire (draft-holmer-rmcat-transport-wide-cc-extensions-01 section 2).
struct PacedPacket: Sendable {
    enum Kind: Sendable { case audio, video, retransmission, probe }

    var packet: RTPPacket
    var kind: Kind
    /// The id of the transport sequence extension, when the packet's section negotiated it.
    var transportSequenceID: UInt8?
    /// Padding octets after the payload (RFC 3550 section 5.1, the P bit): 1...255, 0 for none.
    /// Only probes carry them; their payload is empty.
    var padding: Int = 0
    /// The probe cluster a probe belongs to (`ProbeBitrateEstimator`), when its result is wanted.
    var probeCluster: Int?

    /// What SRTP adds: the 80-bit authentication tag of AES_CM_128_HMAC_SHA1_80 (RFC 3711 section 4.2).
    static let srtpTagBytes = 10

    var priority: PacketPriority {
        switch kind {
        case .audio: .audio
        case .retransmission: .retransmission
        case .video, .probe: .video
        }
    }

    /// The datagram's size once stamped and protected (the RTP header with its one-byte
    /// extension block, RFC 8285 section 4.2, the payload, the padding, the SRTP tag), without
    /// IP and UDP headers, which the estimate leaves out on both sides.
    var wireSize: Int {
        var elements = packet.extensions.filter { (1...14).contains($0.key) && !$0.value.isEmpty && $0.key != transportSequenceID }
            .reduce(0) { $0 + 1 + min(16, $1.value.count) }
        if transportSequenceID != nil { elements += 3 }
        let extensionBlock = elements == 0 ? 0 : 4 + (elements + 3) / 4 * 4
        return 12 + 4 * min(15, packet.csrcs.count) + extensionBlock + packet.payload.count + padding + Self.srtpTagBytes
    }

    /// The plain RTP bytes to protect and send, carrying the low 16 bits of `sequence`.
    func wireBytes(transportSequence sequence: Int64) -> [UInt8] {
        var stamped = packet
        if let id = transportSequenceID {
            stamped.extensions[id] = TransportSequenceNumber(SequenceNumber(UInt16(truncatingIfNeeded: sequence))).bytes
        }
        var bytes = stamped.bytes
        let padding = min(255, max(0, padding))
        if padding > 0 {
            bytes[0] |= 0x20
            bytes += [UInt8](repeating: 0, count: padding - 1) + [UInt8(padding)]
        }
        return bytes
    }
}
