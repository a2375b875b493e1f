/// A rendezvous's TLS certificate as a join line names it (`--fingerprint`): the first 130 bits of
/// the SHA-256 of the certificate's DER encoding, in base32 (RFC 4648 section 6, lower case), in
/// groups of four: "k3f9-2m7q-...-x4". Short enough to read out; to pass as this certificate,
/// another would need a second preimage of 128 bits and more.
public struct ServerFingerprint: Hashable, Sendable, CustomStringConvertible {
    /// The 26 base32 digits (the first 130 bits of the SHA-256), lower case, without dashes; 20
    /// (100 bits) in a fingerprint typed as earlier versions printed it.
    public let digits: String

    static let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567")
    static let digitCount = 26
    /// What conf printed before 128 bits: still accepted, compared on its 100 bits.
    static let shortDigitCount = 20

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

    /// A fingerprint as typed: 26 base32 digits (or an earlier version's 20) in either case,
    /// with or without dashes and spaces; nil for anything else.
    public init?(_ text: String) {
        guard text.utf8.count <= 64 else { return nil }
        let kept = text.lowercased().filter { $0 != "-" && $0 != " " }
        guard kept.count == Self.digitCount || kept.count == Self.shortDigitCount, kept.allSatisfy({ Self.alphabet.contains($0) }) else { return nil }
        digits = kept
    }

    /// Whether both name the same certificate: on all their digits, or on the first 20 when one
    /// was typed in the earlier, shorter form.
    public func matches(_ other: ServerFingerprint) -> Bool {
        let length = min(digits.count, other.digits.count)
        return digits.prefix(length) == other.digits.prefix(length)
    }

    /// "abcd-efgh-ijkl-mnop-qrst-uvwx-yz".
    public var description: String {
        stride(from: 0, to: digits.count, by: 4).map { start in
            String(digits.dropFirst(start).prefix(4))
        }.joined(separator: "-")
    }

    public static let form = "give the 26 letters and digits conf host printed after --fingerprint, like abcd-efgh-ijkl-mnop-qrst-uvwx-yz"
}
