import ConfWire
import Testing

/// `a=fingerprint` (RFC 8122 section 5) and `a=msid` (RFC 8830 section 2) as the RFCs write them:
/// several fingerprint lines with different hash functions per section or session, and media
/// stream ids. The hashes are made-up bytes of each function's length, not a capture.
@Suite struct SDPFingerprintRFCTests {
    /// "AA:AA:..." with `count` bytes of `byte`.
    static func hex(_ byte: UInt8, _ count: Int) -> String {
        Fingerprint(bytes: Array(repeating: byte, count: count)).hex
    }

    static func sdp(session: [String] = [], media: [String]) -> String {
        (["v=0", "o=- 20518 0 IN IP4 203.0.113.1", "s=-", "t=0 0"] + session
            + ["m=audio 9 UDP/TLS/RTP/SAVPF 111", "a=mid:0", "a=rtpmap:111 opus/48000/2"] + media)
            .joined(separator: "\r\n") + "\r\n"
    }

    @Test func everyHashFunctionOfTheRegistryIsReadWithItsLength() throws {
        let lines = [("sha-1", 20), ("sha-224", 28), ("sha-256", 32), ("sha-384", 48), ("sha-512", 64)]
            .map { "a=fingerprint:\($0.0) \(Self.hex(0xA1, $0.1))" }
        let sdp = try SessionDescription.parse(Self.sdp(media: lines))
        let fingerprints = sdp.media[0].fingerprints
        #expect(fingerprints.map(\.algorithm) == ["sha-1", "sha-224", "sha-256", "sha-384", "sha-512"])
        #expect(fingerprints.map(\.hashFunction) == [.sha1, .sha224, .sha256, .sha384, .sha512])
        #expect(fingerprints.map(\.bytes.count) == [20, 28, 32, 48, 64])
        #expect(sdp.media[0].fingerprint?.algorithm == "sha-1")
    }

    @Test func hashFunctionNamesAreCaseInsensitiveAndUnknownOnesAreKept() throws {
        // RFC 8122's grammar: hash-func = "sha-1" / ... / "md5" / "md2" / token, compared without case.
        let sdp = try SessionDescription.parse(Self.sdp(media: [
            "a=fingerprint:SHA-384 \(Self.hex(0xB2, 48))",
            "a=fingerprint:md5 \(Self.hex(0xC3, 16))",
            "a=fingerprint:x-future-hash \(Self.hex(0xD4, 40))",
        ]))
        let fingerprints = sdp.media[0].fingerprints
        #expect(fingerprints.map(\.algorithm) == ["sha-384", "md5", "x-future-hash"])
        #expect(fingerprints.map(\.hashFunction) == [.sha384, nil, nil])
    }

    @Test func aSectionsOwnFingerprintsReplaceTheSessions() throws {
        let session = ["a=fingerprint:sha-256 \(Self.hex(1, 32))", "a=fingerprint:sha-512 \(Self.hex(2, 64))"]
        let inherited = try SessionDescription.parse(Self.sdp(session: session, media: []))
        #expect(inherited.media[0].fingerprints.map(\.algorithm) == ["sha-256", "sha-512"])
        let own = try SessionDescription.parse(Self.sdp(session: session, media: ["a=fingerprint:sha-384 \(Self.hex(3, 48))"]))
        #expect(own.media[0].fingerprints == [Fingerprint(.sha384, bytes: Array(repeating: 3, count: 48))])
    }

    @Test func severalFingerprintsRoundTrip() throws {
        var text = Self.sdp(media: ["a=fingerprint:sha-256 \(Self.hex(5, 32))", "a=fingerprint:sha-384 \(Self.hex(6, 48))"])
        let sdp = try SessionDescription.parse(text)
        text = sdp.serialized
        #expect(text.contains("a=fingerprint:sha-256 05:05:") && text.contains("a=fingerprint:sha-384 06:06:"))
        #expect(try SessionDescription.parse(text) == sdp)
    }

    @Test(arguments: [
        ("a=fingerprint:sha-1 \(SDPFingerprintRFCTests.hex(1, 32))", "a sha-1 hash has 20 bytes"),
        ("a=fingerprint:sha-512 \(SDPFingerprintRFCTests.hex(1, 48))", "a sha-512 hash has 64 bytes"),
        ("a=fingerprint:md5 \(SDPFingerprintRFCTests.hex(1, 65))", "1 to 64 bytes"),
        ("a=fingerprint:sha-256", "expected"),
        ("a=fingerprint:a-hash-name-far-too-long \(SDPFingerprintRFCTests.hex(1, 16))", "up to 16 characters"),
    ])
    func badFingerprintsNameTheProblem(_ line: String, _ words: String) {
        do {
            _ = try SessionDescription.parse(Self.sdp(media: [line]))
            Issue.record("accepted \(line)")
        } catch {
            #expect(error.description.contains(words), "\(error)")
        }
    }

    @Test func aFloodOfFingerprintsIsRefused() {
        let lines = Array(repeating: "a=fingerprint:sha-256 \(Self.hex(7, 32))", count: 17)
        #expect(throws: SDPError.self) { try SessionDescription.parse(Self.sdp(media: lines)) }
    }

    @Test func msidIsReadWrittenAndToleratedWhenOdd() throws {
        // RFC 8830 section 2: msid-value = msid-id [ SP msid-appdata ], each 1*64token-char.
        let sdp = try SessionDescription.parse(Self.sdp(media: [
            "a=msid:{5b4a0e2c-7f1e-4b8e-9a43-0c2b6d1e8f11} track-1",
            "a=msid:stream-only",
            "a=msid:bad/slash track",  // "/" is not a token-char: skipped
            "a=msid:" + String(repeating: "x", count: 65),  // too long: skipped
            "a=msid:",  // empty: skipped
        ]))
        #expect(sdp.media[0].mediaStreams.map(\.description) == ["{5b4a0e2c-7f1e-4b8e-9a43-0c2b6d1e8f11} track-1", "stream-only"])
        let text = sdp.serialized
        #expect(text.contains("a=msid:{5b4a0e2c-7f1e-4b8e-9a43-0c2b6d1e8f11} track-1\r\n") && text.contains("a=msid:stream-only\r\n"))
        #expect(try SessionDescription.parse(text) == sdp)
        let many = try SessionDescription.parse(Self.sdp(media: (0..<50).map { "a=msid:s\($0) t" }))
        #expect(many.media[0].mediaStreams.count == 8)
    }
}
