import ConfWire

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
