@testable import ConfCall
import ConfWire

/// Test helpers: production protects one packet at a time, as the pacer lets it out.
extension RTPProtector {
    /// The datagrams to transmit for `packets`; one that cannot be protected is left out.
    func protect(_ packets: [RTPPacket]) -> [[UInt8]] {
        packets.compactMap { protectRTP($0.bytes) }
    }

    /// The same for packets already serialised (retransmissions).
    func protect(rtp packets: [[UInt8]]) -> [[UInt8]] {
        packets.compactMap { protectRTP($0) }
    }
}
