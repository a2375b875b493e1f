internal import COpenSSL
import ConfWire

/// Four words both ends of a link derive from their DTLS session, whichever end computes them.
/// Read aloud, they tell the participants that they share one session: a party in the middle (a
/// rendezvous that swapped the fingerprints) runs two sessions, whose words differ.
///
/// Words = SHA-256("conf-sas-v2" | 32 bytes exported from the DTLS session with the label
/// `exporterLabel`, RFC 5705), first four bytes, each indexing `SASWords.list` (256 entries). The exported
/// secret depends on both ends' randoms and the key exchange, so an attacker cannot search for
/// matching words offline: each try is a live handshake, with a 2^-32 chance (docs/SECURITY.md).
public enum ShortAuthenticationString {
    /// The RFC 5705 exporter label of the SAS secret ("EXTRACTOR-" labels are for private use).
    public static let exporterLabel = "EXTRACTOR-conf-sas-v2"

    public static func words(exported secret: [UInt8]) -> [String] {
        words(hashing: Array("conf-sas-v2".utf8) + secret)
    }

    /// The words of a link with a peer that cannot export from its DTLS session (a browser:
    /// WebRTC gives pages no exporter): SHA-256("conf-sas-fp-v2" | the two certificates' SHA-256
    /// fingerprints, the lower first | the offerer's nonce | the answerer's), first four bytes.
    ///
    /// The fingerprints tie the words to the certificates DTLS proves; the nonces keep a party in
    /// the middle from choosing them. Each end commits to its nonce in its offer or answer
    /// (`commitment(to:)`, `a=x-conf-sas-commit`) and reveals it only once the link is up, over
    /// the control channel. A party in the middle must fix every certificate and commitment it
    /// shows before any nonce is revealed, so its two sessions' words match by a 2^-32 chance, as
    /// with `words(exported:)` (docs/SECURITY.md).
    public static func words(fingerprint a: [UInt8], _ b: [UInt8], offererNonce: [UInt8], answererNonce: [UInt8]) -> [String] {
        let (low, high) = a.lexicographicallyPrecedes(b) ? (a, b) : (b, a)
        return words(hashing: Array("conf-sas-fp-v2".utf8) + low + high + offererNonce + answererNonce)
    }

    /// What an end publishes of its nonce before the link is up: SHA-256("conf-sas-commit-v1" |
    /// nonce).
    public static func commitment(to nonce: [UInt8]) -> [UInt8] {
        sha256(Array("conf-sas-commit-v1".utf8) + nonce)
    }

    /// Bytes of a nonce: 32.
    public static let nonceLength = 32

    private static func words(hashing input: [UInt8]) -> [String] {
        sha256(input).prefix(4).map { SASWords.list[Int($0)] }
    }

    private static func sha256(_ input: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        _ = input.withUnsafeBufferPointer { SHA256($0.baseAddress, $0.count, &digest) }
        return digest
    }
}
