/// What a datagram on a WebRTC transport is, from its first bytes (RFC 7983 section 7, and RFC
/// 5761 section 4 to tell RTCP from RTP on one port):
///
///     first byte   0...3    STUN
///                 20...63   DTLS
///                 64...79   TURN channel data
///                128...191  RTP or RTCP: RTCP when the second byte (packet type) is 192...223
public enum PacketKind: Equatable, Sendable {
    case stun, dtls, turnChannel, rtp, rtcp, unknown

    public init(classifying bytes: [UInt8]) {
        guard let first = bytes.first else {
            self = .unknown
            return
        }
        switch first {
        case 0...3: self = .stun
        case 20...63: self = .dtls
        case 64...79: self = .turnChannel
        case 128...191:
            guard bytes.count >= 2 else {
                self = .unknown
                return
            }
            self = (192...223).contains(bytes[1]) ? .rtcp : .rtp
        default: self = .unknown
        }
    }
}
