/// The Data Channel Establishment Protocol (RFC 8832): how one side opens a channel on an SCTP
/// stream and the other acknowledges it. Carried with PPID 50.
///
///     DATA_CHANNEL_OPEN (RFC 8832 section 5.1)
///      0                   1                   2                   3
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |  Message Type |  Channel Type |            Priority           |
///     |                    Reliability Parameter                      |
///     |         Label Length          |       Protocol Length         |
///     |                             Label ...                         |
///     |                            Protocol ...                       |
///
///     DATA_CHANNEL_ACK (section 5.2): one byte, 0x02.
public enum DCEPMessage: Equatable, Sendable {
    case open(label: String, protocol: String, channelType: UInt8, priority: UInt16, reliability: UInt32)
    case ack

    static let openType: UInt8 = 0x03
    static let ackType: UInt8 = 0x02
    /// Reliable, ordered.
    public static let reliable: UInt8 = 0x00

    public var bytes: [UInt8] {
        switch self {
        case .ack:
            return [Self.ackType]
        case .open(let label, let proto, let channelType, let priority, let reliability):
            let l = Array(label.utf8), p = Array(proto.utf8)
            var out: [UInt8] = [Self.openType, channelType, UInt8(priority >> 8), UInt8(priority & 0xFF)]
            out += [UInt8(reliability >> 24), UInt8(reliability >> 16 & 0xFF), UInt8(reliability >> 8 & 0xFF), UInt8(reliability & 0xFF)]
            out += [UInt8(l.count >> 8), UInt8(l.count & 0xFF), UInt8(p.count >> 8), UInt8(p.count & 0xFF)]
            return out + l + p
        }
    }

    /// Nil for anything that is not a well-formed DCEP message.
    public init?(bytes: [UInt8]) {
        guard let type = bytes.first else { return nil }
        switch type {
        case Self.ackType:
            self = .ack
        case Self.openType:
            guard bytes.count >= 12 else { return nil }
            let labelLength = Int(bytes[8]) << 8 | Int(bytes[9])
            let protocolLength = Int(bytes[10]) << 8 | Int(bytes[11])
            guard bytes.count == 12 + labelLength + protocolLength,
                  let label = String(validating: bytes[12..<(12 + labelLength)], as: UTF8.self),
                  let proto = String(validating: bytes[(12 + labelLength)...], as: UTF8.self)
            else { return nil }
            let reliability = UInt32(bytes[4]) << 24 | UInt32(bytes[5]) << 16 | UInt32(bytes[6]) << 8 | UInt32(bytes[7])
            self = .open(label: label, protocol: proto, channelType: bytes[1], priority: UInt16(bytes[2]) << 8 | UInt16(bytes[3]),
                         reliability: reliability)
        default:
            return nil
        }
    }
}

/// SCTP payload protocol identifiers for WebRTC data channels (RFC 8831 section 8).
public enum DataChannelPPID {
    public static let dcep: UInt32 = 50
    public static let string: UInt32 = 51
    public static let binary: UInt32 = 53
    public static let emptyString: UInt32 = 56
    public static let emptyBinary: UInt32 = 57
}
