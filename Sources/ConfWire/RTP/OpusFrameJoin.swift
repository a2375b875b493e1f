/// Joins one-frame Opus packets into one packet of several frames (code 3, RFC 6716 section
/// 3.2.5), without decoding them: so that one encoder of 20 ms frames can send 40 or 60 ms
/// packets to a peer on a weak link, where each packet's 50-odd bytes of IP, UDP, RTP and SRTP
/// cost as much as the voice they carry.
public enum OpusFrameJoin {
    /// The longest frame a packet may carry (RFC 6716 section 3.4, R2).
    static let maximumFrameBytes = 1_275

    /// Whether `a` and `b` may be frames of one packet: each a one-frame packet (code 0) with the
    /// same configuration and channel count (section 3.2.5: every frame of a code 3 packet shares
    /// the TOC byte).
    public static func canJoin(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard let first = a.first, let second = b.first else { return false }
        return first & 0x03 == 0 && second == first
    }

    /// `packets` as one packet, or nil when they cannot share one (see `canJoin`; a frame over
    /// 1,275 bytes; more than 120 ms in all). A single packet is returned as it is. Frames of one
    /// length are sent as CBR (no lengths), others as VBR with each length but the last in one
    /// or two bytes (section 3.2.1).
    public static func join(_ packets: [[UInt8]]) -> [UInt8]? {
        guard let first = packets.first, first.first != nil else { return nil }
        if packets.count == 1 { return first }
        let toc = first[0]
        guard packets.allSatisfy({ canJoin(first, $0) && $0.count - 1 <= maximumFrameBytes }),
              packets.count * OpusPacketDuration.frameSamples(configuration: Int(toc >> 3)) <= OpusPacketDuration.maximumSamples
        else { return nil }
        let lengths = packets.map { $0.count - 1 }
        let variable = Set(lengths).count > 1
        var joined: [UInt8] = [toc | 0x03, (variable ? 0x80 : 0) | UInt8(packets.count)]
        joined.reserveCapacity(2 + 2 * packets.count + lengths.reduce(0, +))
        if variable {
            for length in lengths.dropLast() { appendLength(length, to: &joined) }
        }
        for packet in packets { joined += packet[1...] }
        return joined
    }

    /// A frame length in one byte (0...251) or two (252...1275: the first 252...255, the
    /// length being first + 4 × second), as RFC 6716 section 3.2.1 writes it.
    private static func appendLength(_ length: Int, to bytes: inout [UInt8]) {
        if length < 252 {
            bytes.append(UInt8(length))
        } else {
            let first = 252 + (length - 252) % 4
            bytes += [UInt8(first), UInt8((length - first) / 4)]
        }
    }
}
