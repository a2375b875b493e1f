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
    /// WebRTC gives pages no exporter): SHA-256("conf-sas-fp-v1" | the two certificates' SHA-256
    /// fingerprints, the lower first), first four bytes. Both ends compute them from the
    /// fingerprints they exchanged, which are the certificates DTLS then proves. A party in the
    /// middle presents other certificates to each end, so the words differ unless it found, in
    /// the seconds of the call's set-up, certificates whose words collide (a 2^-32 chance each
    /// try, but tries that can be made offline, unlike `words(exported:)`'s: docs/SECURITY.md).
    public static func words(fingerprint a: [UInt8], _ b: [UInt8]) -> [String] {
        let (low, high) = a.lexicographicallyPrecedes(b) ? (a, b) : (b, a)
        return words(hashing: Array("conf-sas-fp-v1".utf8) + low + high)
    }

    private static func words(hashing input: [UInt8]) -> [String] {
        var digest = [UInt8](repeating: 0, count: 32)
        _ = input.withUnsafeBufferPointer { SHA256($0.baseAddress, $0.count, &digest) }
        return digest.prefix(4).map { SASWords.list[Int($0)] }
    }
}
