import ConfCore
import ConfWire
import Testing

/// What the room event and conf rendezvous's first lines say of the certificate served.
struct ServedCertificateTests {
    @Test func itsMembersAndWords() {
        let acme = ServedCertificate(kind: .acme, expires: 1_765_000_000)
        #expect(acme.json.serialized == #"{"kind":"acme","expires":"2025-12-06T05:46:40.000Z"}"#)
        #expect(acme.words == "certificate: acme, expires 2025-12-06T05:46:40.000Z")
        let own = ServedCertificate(kind: .selfSigned, reason: "the router does not forward port 443")
        #expect(own.words == "certificate: self-signed (the router does not forward port 443)")
    }

    /// RFC 5280's "no expiry" (99991231235959Z) is past what nanoseconds since 1970 can count:
    /// held at the last instant they can, not a crash.
    @Test func aCertificateThatNeverExpiresIsHeldWithinRange() {
        let forever = ServedCertificate(kind: .file, expires: 253_402_300_799)
        #expect(forever.words.hasPrefix("certificate: file, expires 2262-"))
        #expect(ServedCertificate.wallTime(-5).nanosecondsSince1970 == 0)
    }
}
