/// REMB, a receiver's estimate of the total bitrate it can take (draft-alvestrand-rmcat-remb-03
/// section 2.2): an application-layer feedback message (RTCP PSFB, PT 206, FMT 15) told from the
/// others by its unique identifier "REMB".
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     |V=2|P| FMT=15  |   PT=206      |             length            |  (the header, not in a body)
///     |                  SSRC of packet sender                        |
///     |                  SSRC of media source (always 0)              |
///     |  Unique identifier 'R' 'E' 'M' 'B'                            |
///     |  Num SSRC     | BR Exp    |  BR Mantissa                      |
///     |   SSRC feedback                                               |
///     |  ...                                                          |
///
/// The bitrate is mantissa × 2^exp bits per second (18-bit mantissa, 6-bit exponent).
public struct ReceiverEstimatedMaximumBitrate: Equatable, Sendable {
    static let identifier: [UInt8] = Array("REMB".utf8)

    public var senderSSRC: SSRC
    /// Bits per second. Sent as 18 significant bits: larger values go rounded down.
    public var bitrate: UInt64
    /// The streams the estimate covers; at most 255 are sent.
    public var ssrcs: [SSRC]

    public init(senderSSRC: SSRC, bitrate: UInt64, ssrcs: [SSRC]) {
        self.senderSSRC = senderSSRC
        self.bitrate = bitrate
        self.ssrcs = ssrcs
    }

    /// Reads the part of a PSFB FMT 15 packet after its RTCP header. Nil when it is not a REMB
    /// (another application-layer message), when its SSRC list is shorter than its count, or when
    /// its bitrate does not fit 64 bits.
    public init?(rtcpBody body: [UInt8]) {
        guard body.count >= 16, Array(body[8..<12]) == Self.identifier else { return nil }
        let count = Int(body[12])
        let exponent = Int(body[13] >> 2)
        let mantissa = UInt64(body[13] & 3) << 16 | UInt64(body[14]) << 8 | UInt64(body[15])
        guard body.count >= 16 + 4 * count, mantissa == 0 || mantissa.leadingZeroBitCount >= exponent else { return nil }
        func u32(_ i: Int) -> UInt32 { UInt32(body[i]) << 24 | UInt32(body[i + 1]) << 16 | UInt32(body[i + 2]) << 8 | UInt32(body[i + 3]) }
        self.init(senderSSRC: SSRC(u32(0)), bitrate: mantissa << exponent, ssrcs: (0..<count).map { SSRC(u32(16 + 4 * $0)) })
    }

    /// The whole RTCP packet, header included.
    public var bytes: [UInt8] {
        let exponent = max(0, (64 - bitrate.leadingZeroBitCount) - 18)
        let mantissa = bitrate >> exponent
        let listed = ssrcs.prefix(255)
        var body: [UInt8] = []
        for word in [senderSSRC.rawValue, 0] { append(word, to: &body) }
        body += Self.identifier
        body += [UInt8(listed.count), UInt8(exponent << 2) | UInt8(mantissa >> 16), UInt8(mantissa >> 8 & 0xFF), UInt8(mantissa & 0xFF)]
        for ssrc in listed { append(ssrc.rawValue, to: &body) }
        let words = body.count / 4
        return [0x80 | 15, 206, UInt8(words >> 8), UInt8(words & 0xFF)] + body
    }

    private func append(_ word: UInt32, to out: inout [UInt8]) {
        out += [UInt8(word >> 24), UInt8(word >> 16 & 0xFF), UInt8(word >> 8 & 0xFF), UInt8(word & 0xFF)]
    }
}
