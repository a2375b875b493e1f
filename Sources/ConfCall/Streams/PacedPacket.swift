import ConfWire
import ConfCrypto

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

    /// What SRTP adds: the tag of the link's profile (`RTPProtector.rtpOverhead`: 16 bytes for
    /// AES-GCM, RFC 7714 section 5; 10 for AES_CM_128_HMAC_SHA1_80, RFC 3711 section 4.2).
    var srtpTagBytes = Self.defaultSRTPTagBytes

    /// Until a link is keyed: AES_CM_128_HMAC_SHA1_80's tag, the profile every peer has.
    static let defaultSRTPTagBytes = SRTPProfile.aes128CMSHA1_80.rtpOverhead

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
        var elements = transportSequenceID != nil ? 3 : 0
        for (id, data) in packet.extensions where (1...14).contains(id) && !data.isEmpty && id != transportSequenceID {
            elements += 1 + min(16, data.count)
        }
        let extensionBlock = elements == 0 ? 0 : 4 + (elements + 3) / 4 * 4
        return 12 + 4 * min(15, packet.csrcs.count) + extensionBlock + packet.payload.count + padding + srtpTagBytes
    }

    /// The plain RTP bytes to protect and send, carrying the low 16 bits of `sequence`.
    func wireBytes(transportSequence sequence: Int64) -> [UInt8] {
        let stamp = transportSequenceID.map { ($0, TransportSequenceNumber(SequenceNumber(UInt16(truncatingIfNeeded: sequence))).bytes) }
        return packet.bytes(stamping: stamp, padding: padding)
    }
}
