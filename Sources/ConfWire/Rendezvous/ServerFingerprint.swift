/// A rendezvous's TLS certificate as a join line names it (`--fingerprint`): the first 100 bits of
/// the SHA-256 of the certificate's DER encoding, in base32 (RFC 4648 section 6, lower case), in
/// five groups of four: "k3f9-2m7q-...". Short enough to read out; to pass as this certificate,
/// another would need a second preimage of 100 bits, far beyond anyone's means.
public struct ServerFingerprint: Hashable, Sendable, CustomStringConvertible {
    /// The 20 base32 digits, lower case, without dashes.
    public let digits: String

    static let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567")
    static let digitCount = 20

    /// The fingerprint of a certificate whose DER encoding hashes to `sha256` (32 bytes).
    public init(sha256: [UInt8]) {
        var digits = ""
        var bits = 0, value: UInt32 = 0
        for byte in sha256 {
            value = (value << 8) | UInt32(byte)
            bits += 8
            while bits >= 5, digits.count < Self.digitCount {
                bits -= 5
                digits.append(Self.alphabet[Int((value >> UInt32(bits)) & 31)])
            }
            value &= (1 << UInt32(bits)) - 1
            if digits.count == Self.digitCount { break }
        }
        self.digits = digits
    }

    /// A fingerprint as typed: 20 base32 digits in either case, with or without dashes and
    /// spaces; nil for anything else.
    public init?(_ text: String) {
        guard text.utf8.count <= 64 else { return nil }
        let kept = text.lowercased().filter { $0 != "-" && $0 != " " }
        guard kept.count == Self.digitCount, kept.allSatisfy({ Self.alphabet.contains($0) }) else { return nil }
        digits = kept
    }

    /// "abcd-efgh-ijkl-mnop-qrst".
    public var description: String {
        stride(from: 0, to: digits.count, by: 4).map { start in
            String(digits.dropFirst(start).prefix(4))
        }.joined(separator: "-")
    }

    public static let form = "give the 20 letters and digits conf host printed after --fingerprint, like abcd-efgh-ijkl-mnop-qrst"
}
