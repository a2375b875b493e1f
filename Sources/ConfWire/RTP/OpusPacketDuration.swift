/// How long an Opus packet plays, from its table-of-contents byte (RFC 6716 section 3.1) and, for
/// code 3, its frame count byte (section 3.2.5); without decoding it. conf plays packets of 20 to
/// 120 ms; one of 10 ms or less is noticed by this and dropped, not garbled.
public enum OpusPacketDuration {
    /// Samples at 48 kHz that the packet holds; nil when its framing is malformed (RFC 6716
    /// section 3.4: R1, at least one byte; R3, code 1 frames of equal size; R5, code 3 with at
    /// least one frame and no more than 120 ms). The frames' own lengths are libopus's to check.
    public static func samples(in packet: [UInt8]) -> Int? {
        guard let toc = packet.first else { return nil }
        let frame = frameSamples(configuration: Int(toc >> 3))
        switch toc & 0x03 {
        case 0: return frame
        case 1: return (packet.count - 1) % 2 == 0 ? 2 * frame : nil
        case 2: return 2 * frame
        default:
            guard packet.count >= 2 else { return nil }
            let count = Int(packet[1] & 0x3F)
            guard count >= 1, count * frame <= maximumSamples else { return nil }
            return count * frame
        }
    }

    /// 120 ms: the most one packet may hold (RFC 6716 section 3.2.5).
    public static let maximumSamples = 5_760

    /// One frame's samples at 48 kHz for a TOC configuration (RFC 6716 section 3.1, Table 2):
    /// SILK 10/20/40/60 ms (0...11), hybrid 10/20 ms (12...15), CELT 2.5/5/10/20 ms (16...31).
    static func frameSamples(configuration: Int) -> Int {
        switch configuration {
        case 0...11: [480, 960, 1_920, 2_880][configuration % 4]
        case 12...15: [480, 960][configuration % 2]
        default: [120, 240, 480, 960][configuration % 4]
        }
    }
}
