import ConfSession
import ConfWire
import Testing

/// What other WebRTC stacks send, written from the RFCs (not captured): several fingerprints
/// (RFC 8122 section 5), offers with or without reduced-size RTCP (RFC 5506 section 5), and
/// media stream ids (RFC 8830, JSEP RFC 8829 section 5.2.1).
@Suite struct SDPNegotiationStandardsTests {
    static let local = LocalEndpoint(iceUfrag: "abcd", icePwd: String(repeating: "x", count: 24),
                                     fingerprint: Fingerprint(bytes: Array(repeating: 1, count: 32)), role: .publisher,
                                     audioSSRC: 11, videoSSRC: 22)

    static func hex(_ byte: UInt8, _ count: Int) -> String { Fingerprint(bytes: Array(repeating: byte, count: count)).hex }

    /// A JSEP offer: BUNDLE of audio and video, transport on each m-line, with `fingerprints` and
    /// `extra` lines in each section.
    static func offer(fingerprints: [String], extra: [String] = []) -> String {
        var lines = ["v=0", "o=- 4611731400430051336 2 IN IP4 127.0.0.1", "s=-", "t=0 0", "a=group:BUNDLE 0 1",
                     "a=msid-semantic: WMS stream-a"]
        for (mid, kind, format, map) in [("0", "audio", "111", "opus/48000/2"), ("1", "video", "96", "VP8/90000")] {
            lines += ["m=\(kind) 9 UDP/TLS/RTP/SAVPF \(format)", "c=IN IP4 0.0.0.0", "a=ice-ufrag:EsAw", "a=ice-pwd:P2uYro0UCOQ4zxjKXaWCBui1"]
            lines += fingerprints.map { "a=fingerprint:\($0)" }
            lines += ["a=setup:actpass", "a=mid:\(mid)", "a=sendrecv", "a=rtcp-mux", "a=rtpmap:\(format) \(map)"] + extra
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    static func answer(_ text: String) throws -> (SessionDescription, NegotiatedLink) {
        try SDPNegotiation.answer(to: try SessionDescription.parse(text), from: local, sessionID: 77)
    }

    // MARK: Fingerprints

    @Test func anOfferWithSHA384AndSHA512OnlyIsAccepted() throws {
        let (_, link) = try Self.answer(Self.offer(fingerprints: ["sha-384 \(Self.hex(2, 48))", "sha-512 \(Self.hex(3, 64))"]))
        #expect(link.remoteFingerprints.map(\.hashFunction) == [.sha384, .sha512])
    }

    @Test func everyVerifiableFingerprintIsKeptAndTheOthersDropped() throws {
        let (_, link) = try Self.answer(Self.offer(fingerprints: [
            "sha-256 \(Self.hex(1, 32))", "md5 \(Self.hex(9, 16))", "sha-384 \(Self.hex(2, 48))", "sha-1 \(Self.hex(4, 20))",
        ]))
        #expect(link.remoteFingerprints.map(\.algorithm) == ["sha-256", "sha-384", "sha-1"])
    }

    @Test func anOfferWithNoVerifiableFingerprintIsRefusedSayingWhy() {
        do {
            _ = try Self.answer(Self.offer(fingerprints: ["md5 \(Self.hex(9, 16))", "x-new \(Self.hex(8, 24))"]))
            Issue.record("accepted an offer conf cannot authenticate")
        } catch {
            #expect("\(error)".contains("use only md5, x-new"), "\(error)")
            #expect("\(error)".contains("sha-1, sha-224, sha-256, sha-384, sha-512"), "\(error)")
        }
    }

    @Test func anAnswerWithSeveralFingerprintsIsAccepted() throws {
        let offer = SDPNegotiation.offer(from: Self.local, sessionID: 1)
        var (answer, _) = try SDPNegotiation.answer(to: offer, from: Self.local, sessionID: 2)
        for i in answer.media.indices {
            answer.media[i].fingerprints = [Fingerprint(.sha512, bytes: Array(repeating: 5, count: 64)),
                                            Fingerprint(.sha256, bytes: Array(repeating: 6, count: 32))]
        }
        let link = try SDPNegotiation.accept(answer: try SessionDescription.parse(answer.serialized), to: offer)
        #expect(link.remoteFingerprints.map(\.hashFunction) == [.sha512, .sha256])
    }

    @Test func confItselfSendsOneSHA256Fingerprint() throws {
        let offer = SDPNegotiation.offer(from: Self.local, sessionID: 1).serialized
        let (answer, _) = try Self.answer(Self.offer(fingerprints: ["sha-384 \(Self.hex(2, 48))"]))
        for text in [offer, answer.serialized] {
            let lines = text.split(separator: "\r\n").filter { $0.hasPrefix("a=fingerprint:") }
            #expect(!lines.isEmpty && lines.allSatisfy { $0.hasPrefix("a=fingerprint:sha-256 ") })
            #expect(lines.count == text.split(separator: "\r\n").filter { $0.hasPrefix("m=") }.count)
        }
    }

    // MARK: Reduced-size RTCP

    @Test func anAnswerHasRTCPRsizeOnlyWhenTheOfferHadIt() throws {
        let fingerprint = ["sha-256 \(Self.hex(1, 32))"]
        let (without, _) = try Self.answer(Self.offer(fingerprints: fingerprint))
        #expect(!without.serialized.contains("a=rtcp-rsize"))
        let (with, _) = try Self.answer(Self.offer(fingerprints: fingerprint, extra: ["a=rtcp-rsize"]))
        #expect(with.media.prefix(2).allSatisfy { $0.rtcpReducedSize })
        // conf's own offer asks for it.
        #expect(SDPNegotiation.offer(from: Self.local, sessionID: 1).media.prefix(2).allSatisfy { $0.rtcpReducedSize })
    }

    // MARK: Packet time

    /// RFC 7587 section 7: conf plays Opus packets of 20 to 120 ms (whole 20 ms frames), and its
    /// offer and answer say so in the audio section: minptime=20 in the fmtp, a=maxptime:120.
    @Test func offerAndAnswerSayWhichAudioPacketLengthsPlay() throws {
        let offer = SDPNegotiation.offer(from: Self.local, sessionID: 1)
        #expect(offer.media.map(\.maxPacketTime) == [120, nil, nil])
        #expect(offer.serialized.contains("a=maxptime:120\r\n") && offer.serialized.contains("minptime=20;"))
        let (answer, _) = try Self.answer(Self.offer(fingerprints: ["sha-256 \(Self.hex(1, 32))"]))
        #expect(answer.media.first?.maxPacketTime == 120 && answer.serialized.contains("a=maxptime:120\r\n"))
        #expect(answer.serialized.contains("minptime=20;"))
        #expect(try SessionDescription.parse(offer.serialized).media[0].maxPacketTime == 120)
    }

    /// The peer's a=maxptime is what conf may send it (joined Opus frames on a weak link): read
    /// from an offer and from an answer; none said, none assumed.
    @Test func thePeersMaxptimeIsKept() throws {
        let sha256 = "sha-256 \(Self.hex(1, 32))"
        #expect(try Self.answer(Self.offer(fingerprints: [sha256], extra: ["a=maxptime:60"])).1.audio?.remoteMaxPacketTime == 60)
        #expect(try Self.answer(Self.offer(fingerprints: [sha256])).1.audio?.remoteMaxPacketTime == nil)
        let ours = SDPNegotiation.offer(from: Self.local, sessionID: 1)
        let (answer, _) = try SDPNegotiation.answer(to: ours, from: Self.local, sessionID: 2)
        #expect(try SDPNegotiation.accept(answer: answer, to: ours).audio?.remoteMaxPacketTime == 120)
        var silent = answer
        silent.media[0].maxPacketTime = nil
        #expect(try SDPNegotiation.accept(answer: silent, to: ours).audio?.remoteMaxPacketTime == nil)
    }

    // MARK: Media stream ids

    @Test func audioAndVideoNameOneStreamAndTwoTracks() throws {
        let offer = SDPNegotiation.offer(from: Self.local, sessionID: 0xBEEF)
        let streams = offer.media.map(\.mediaStreams)
        #expect(streams[0].count == 1 && streams[1].count == 1 && streams[2].isEmpty)
        #expect(streams[0][0].stream == streams[1][0].stream && streams[0][0].track != streams[1][0].track)
        #expect(offer.serialized.contains("a=msid:\(streams[0][0].stream) \(streams[0][0].track!)\r\n"))

        let (answer, _) = try Self.answer(Self.offer(fingerprints: ["sha-256 \(Self.hex(1, 32))"], extra: ["a=msid:stream-a track-b"]))
        #expect(answer.media[0].mediaStreams.count == 1 && answer.media[0].mediaStreams[0].stream == answer.media[1].mediaStreams[0].stream)
        #expect(answer.media[0].mediaStreams[0].stream != "stream-a")
    }

    @Test func aSectionThatDoesNotSendNamesNoStream() throws {
        var listener = Self.local
        listener.role = .listener
        let offer = SDPNegotiation.offer(from: listener, sessionID: 3)
        #expect(offer.media.allSatisfy { $0.mediaStreams.isEmpty } && !offer.serialized.contains("a=msid:"))
    }
}
