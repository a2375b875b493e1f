import Foundation
import ConfCore
import ConfWire
import Testing

@Suite struct SDPTests {
    /// An offer in the shape GStreamer's webrtcbin makes (C-INTEROP.md): BUNDLE, session-less
    /// transport per m-line, a bundle-only data channel, no candidates.
    static let webrtcbinOffer = """
    v=0\r
    o=- 1234567890123456789 0 IN IP4 0.0.0.0\r
    s=-\r
    t=0 0\r
    a=ice-options:trickle\r
    a=group:BUNDLE audio0 application1\r
    m=audio 9 UDP/TLS/RTP/SAVPF 111\r
    c=IN IP4 0.0.0.0\r
    a=setup:actpass\r
    a=ice-ufrag:Wq4bLsk2dLm5JzC9AbBGbJ3rfq9ZTbHa\r
    a=ice-pwd:cU8Qc6+8nvnVpBpGJWr4FbMTUbfnCiWB\r
    a=rtcp-mux\r
    a=rtcp-rsize\r
    a=sendrecv\r
    a=rtpmap:111 OPUS/48000/2\r
    a=rtcp-fb:111 transport-cc\r
    a=extmap:1 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01\r
    a=ssrc:3484078953 msid:user1@host-a8a3e1e1 webrtctransceiver0\r
    a=ssrc:3484078953 cname:user1@host-a8a3e1e1\r
    a=mid:audio0\r
    a=fingerprint:sha-256 9E:29:15:5F:D5:A5:46:2F:DA:49:5C:44:A9:45:A9:24:4E:28:6B:18:52:D0:B1:51:CB:18:12:20:74:9A:7A:E6\r
    m=application 0 UDP/DTLS/SCTP webrtc-datachannel\r
    c=IN IP4 0.0.0.0\r
    a=bundle-only\r
    a=setup:actpass\r
    a=ice-ufrag:Wq4bLsk2dLm5JzC9AbBGbJ3rfq9ZTbHa\r
    a=ice-pwd:cU8Qc6+8nvnVpBpGJWr4FbMTUbfnCiWB\r
    a=mid:application1\r
    a=sctp-port:5000\r
    a=fingerprint:sha-256 9E:29:15:5F:D5:A5:46:2F:DA:49:5C:44:A9:45:A9:24:4E:28:6B:18:52:D0:B1:51:CB:18:12:20:74:9A:7A:E6\r

    """

    @Test func parsesAWebrtcbinOffer() throws {
        let sdp = try SessionDescription.parse(Self.webrtcbinOffer)
        #expect(sdp.bundle == ["audio0", "application1"])
        #expect(sdp.media.count == 2)
        let audio = sdp.media[0]
        #expect(audio.kind == .audio && audio.mid == "audio0" && audio.rtcpMux && audio.setup == .actpass)
        #expect(audio.rtpMaps == [RTPMap(payloadType: 111, encoding: "OPUS", clockRate: 48000, channels: 2)])
        #expect(audio.ssrcs == [3_484_078_953])
        #expect(audio.fingerprint?.bytes.count == 32 && audio.fingerprint?.hex.hasPrefix("9E:29:15") == true)
        let data = sdp.media[1]
        #expect(data.kind == .application && data.bundleOnly && data.sctpPort == 5000 && !data.isRejected)
        #expect(sdp.bundleTransport?.iceUfrag == "Wq4bLsk2dLm5JzC9AbBGbJ3rfq9ZTbHa")
    }

    @Test func roundTripsWhatItWrites() throws {
        var audio = MediaDescription(kind: .audio, proto: "UDP/TLS/RTP/SAVPF", formats: ["111"], mid: "0", direction: .recvonly)
        audio.iceUfrag = "abcd"
        audio.icePwd = String(repeating: "p", count: 24)
        audio.iceOptions = ["trickle"]
        audio.fingerprint = Fingerprint(bytes: Array(0..<32))
        audio.setup = .actpass
        audio.rtcpMux = true
        audio.rtpMaps = [RTPMap(payloadType: 111, encoding: "opus", clockRate: 48000, channels: 2)]
        audio.formatParameters = [111: "minptime=10;useinbandfec=1"]
        audio.extensions = [(1, "urn:ietf:params:rtp-hdrext:ssrc-audio-level")]
        audio.ssrcs = [42]
        audio.maxPacketTime = 20
        audio.candidates = [try IceCandidate.parse("candidate:1 1 udp 2130706431 192.0.2.1 5000 typ host").get()]
        audio.endOfCandidates = true
        var data = MediaDescription(kind: .application, proto: "UDP/DTLS/SCTP", formats: ["webrtc-datachannel"], mid: "1")
        data.sctpPort = 5000
        data.maxMessageSize = 262_144
        let sdp = SessionDescription(sessionID: 99, bundle: ["0", "1"], media: [audio, data])
        let text = sdp.serialized
        #expect(text.hasSuffix("\r\n") && text.contains("a=fingerprint:sha-256 00:01:02:"))
        #expect(try SessionDescription.parse(text) == sdp)
    }

    /// conf says it derives its words from the DTLS session (`a=x-conf-sas:exporter`); a
    /// description without the line (a browser's, webrtcbin's) does not.
    @Test func theExporterSASLineRoundTrips() throws {
        var sdp = try SessionDescription.parse(Self.webrtcbinOffer)
        #expect(!sdp.exporterSAS)
        sdp.exporterSAS = true
        #expect(sdp.serialized.contains("\r\na=x-conf-sas:exporter\r\n"))
        #expect(try SessionDescription.parse(sdp.serialized).exporterSAS)
        #expect(try !SessionDescription.parse(Self.webrtcbinOffer.replacingOccurrences(of: "t=0 0\r\n", with: "t=0 0\r\na=x-conf-sas:other\r\n")).exporterSAS)
    }

    @Test func sessionLevelTransportIsInherited() throws {
        let text = "v=0\no=- 1 1 IN IP4 0.0.0.0\ns=-\nt=0 0\na=ice-ufrag:sess\na=ice-pwd:0123456789012345678901\na=setup:active\n"
            + "a=fingerprint:sha-256 " + Array(repeating: "AB", count: 32).joined(separator: ":") + "\n"
            + "m=audio 9 UDP/TLS/RTP/SAVPF 111\na=mid:0\n"
        let sdp = try SessionDescription.parse(text)
        #expect(sdp.media[0].iceUfrag == "sess" && sdp.media[0].setup == .active && sdp.media[0].fingerprint != nil)
    }

    @Test(arguments: [
        ("", "no v= line"),
        ("v=1\r\n", "version must be 0"),
        ("v=0\r\no=- x 1 IN IP4 0.0.0.0\r\n", "origin"),
        ("v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\n", "no media section"),
        ("v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\nm=audio\r\n", "m= needs"),
        ("v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\nm=audio 99999 RTP/AVP 0\r\n", "port"),
        ("v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\nm=audio 9 RTP/AVP 0\r\na=fingerprint:sha-256 AB:CD\r\n", "32 bytes"),
        ("v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\nm=audio 9 RTP/AVP 0\r\na=fingerprint:sha-384 AB:CD\r\n", "48 bytes"),
        ("v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\nm=audio 9 RTP/AVP 0\r\na=fingerprint:sha-256 ZZ\r\n", "hex pairs"),
        ("v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\nm=audio 9 RTP/AVP 0\r\na=setup:maybe\r\n", "actpass"),
        ("v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\nm=audio 9 RTP/AVP 0\r\na=rtpmap:200 x/1\r\n", "rtpmap"),
        ("v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\nm=audio 9 RTP/AVP 0\r\na=ice-pwd:short\r\n", "22 to 256"),
        ("v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\nm=audio 9 RTP/AVP 0\r\na=candidate:1 1 udp 1 1.2.3.4 99999 typ host\r\n", "port"),
        ("v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\nm=audio 9 RTP/AVP 0\r\nnonsense\r\n", "expected 'x=value'"),
    ])
    func malformedSDPNamesTheProblem(_ text: String, _ words: String) {
        do {
            _ = try SessionDescription.parse(text)
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.description.contains(words), "\(error)")
        }
    }

    @Test func oversizedAndAbsurdInputIsRefused() {
        #expect(throws: SDPError.tooLarge(limit: SessionDescription.maxBytes)) {
            try SessionDescription.parse(String(repeating: "a=x\r\n", count: 20_000))
        }
        let manySections = "v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\n" + String(repeating: "m=audio 9 RTP/AVP 0\r\n", count: 17)
        #expect(throws: SDPError.self) { try SessionDescription.parse(manySections) }
    }

    @Test(arguments: [
        "candidate:1 1 udp 2130706431 192.0.2.1 5000 typ host",
        "candidate:842163049 1 udp 1677729535 198.51.100.7 51234 typ srflx raddr 192.0.2.1 rport 5000 generation 0",
        "candidate:3 1 tcp 1518280447 2001:db8::1 9 typ host tcptype active",
        "a=candidate:4 1 UDP 2122260223 4b1d3e2c-1111-2222-3333-444455556666.local 60000 typ host",
    ])
    func candidatesRoundTrip(_ line: String) throws {
        let candidate = try IceCandidate.parse(line).get()
        #expect(try IceCandidate.parse(candidate.description).get() == candidate)
    }

    @Test(arguments: [
        "candidate:", "1 1 udp 1 1.2.3.4 5 typ host", "candidate:1 0 udp 1 1.2.3.4 5 typ host",
        "candidate:1 1 sctp 1 1.2.3.4 5 typ host", "candidate:1 1 udp 99999999999 1.2.3.4 5 typ host",
        "candidate:1 1 udp 1 1.2.3.4 5 type host", "candidate:1 1 udp 1 1.2.3.4 5 typ magic",
        "candidate:1 1 udp 1 <script> 5 typ host", "candidate:1 1 udp 1 1.2.3.4 5 typ host raddr",
        "candidate:1 1 udp 1 " + String(repeating: "a", count: 300) + " 5 typ host",
    ])
    func absurdCandidatesAreRefused(_ line: String) {
        #expect((try? IceCandidate.parse(line).get()) == nil)
    }

    @Test func directionAnswersFollowRFC3264() {
        #expect(Direction.sendrecv.answer(wanting: .sendrecv) == .sendrecv)
        #expect(Direction.sendrecv.answer(wanting: .recvonly) == .recvonly)
        #expect(Direction.sendonly.answer(wanting: .sendrecv) == .recvonly)
        #expect(Direction.recvonly.answer(wanting: .sendrecv) == .sendonly)
        #expect(Direction.recvonly.answer(wanting: .recvonly) == .inactive)
    }

    /// Random mutations of a real offer never crash the parser.
    @Test func survivesRandomMutations() {
        var random = SeededRandom(seed: 11)
        let seed = Array(Self.webrtcbinOffer.utf8)
        let alphabet = Array(" :=\r\n0a".utf8)
        for _ in 0..<5_000 {
            var bytes = seed
            for _ in 0..<(1 + random.next() % 8) {
                let at = Int(random.next() % UInt64(bytes.count))
                switch random.next() % 3 {
                case 0: bytes[at] = UInt8(truncatingIfNeeded: random.next())
                case 1: bytes.remove(at: at)
                default: bytes.insert(alphabet[Int(random.next() % UInt64(alphabet.count))], at: at)
                }
            }
            _ = try? SessionDescription.parse(String(decoding: bytes, as: UTF8.self))
        }
    }
}
