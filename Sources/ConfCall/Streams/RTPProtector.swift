import ConfCrypto
import ConfWire

/// What protects a link's media (SRTP, RFC 3711): the streams and the engine see only this, so
/// tests may use a fake. Each call returns nil when the packet cannot be protected, or fails
/// authentication or the replay check; such a packet is dropped, never passed on.
public protocol RTPProtector {
    func protectRTP(_ packet: [UInt8]) -> [UInt8]?
    func protectRTCP(_ packet: [UInt8]) -> [UInt8]?
    func unprotectRTP(_ packet: [UInt8]) -> [UInt8]?
    func unprotectRTCP(_ packet: [UInt8]) -> [UInt8]?
}

extension SRTPSession: RTPProtector {}

extension RTPProtector {
    /// The datagrams to transmit for `packets`; one that cannot be protected is left out.
    public func protect(_ packets: [RTPPacket]) -> [[UInt8]] {
        packets.compactMap { protectRTP($0.bytes) }
    }

    /// The same for packets already serialised (retransmissions).
    public func protect(rtp packets: [[UInt8]]) -> [[UInt8]] {
        packets.compactMap { protectRTP($0) }
    }
}
