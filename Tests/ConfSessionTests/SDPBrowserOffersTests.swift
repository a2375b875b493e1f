import ConfSession
import ConfWire
import Testing

/// Offers as browsers may write them where they differ from conf's own: H.264 listed first (as
/// Safari orders its formats), RTX for each format, and simulcast (RFC 8853: `a=rid` and
/// `a=simulcast`, with the RTP stream id extensions). Written by hand from those RFCs.
@Suite struct SDPBrowserOffersTests {
    static let rtpStreamID = "urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id"
    static let repairedStreamID = "urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id"
    static let midExtension = "urn:ietf:params:rtp-hdrext:sdes:mid"

    /// A BUNDLE offer of Opus/111 and a video section whose formats and extra lines are given.
    static func offer(videoFormats: String, video: [String]) -> String {
        var lines = ["v=0", "o=- 4611731400430051336 2 IN IP4 127.0.0.1", "s=-", "t=0 0", "a=group:BUNDLE 0 1"]
        let common = ["c=IN IP4 0.0.0.0", "a=ice-ufrag:EsAw", "a=ice-pwd:P2uYro0UCOQ4zxjKXaWCBui1",
                      "a=fingerprint:sha-256 \(SDPNegotiationStandardsTests.hex(1, 32))", "a=setup:actpass", "a=sendrecv", "a=rtcp-mux"]
        lines += ["m=audio 9 UDP/TLS/RTP/SAVPF 111"] + common + ["a=mid:0", "a=rtpmap:111 opus/48000/2", "a=ssrc:1111 cname:x"]
        lines += ["m=video 9 UDP/TLS/RTP/SAVPF \(videoFormats)"] + common + ["a=mid:1"] + video
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    static func answer(_ text: String) throws -> (SessionDescription, NegotiatedLink) {
        try SDPNegotiation.answer(to: try SessionDescription.parse(text), from: SDPNegotiationStandardsTests.local, sessionID: 9)
    }

    @Test func h264OfferedFirstIsPassedOverForVP8() throws {
        let (answer, link) = try Self.answer(Self.offer(videoFormats: "102 103 96 97", video: [
            "a=rtpmap:102 H264/90000", "a=fmtp:102 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f",
            "a=rtpmap:103 rtx/90000", "a=fmtp:103 apt=102",
            "a=rtpmap:96 VP8/90000", "a=rtcp-fb:96 nack", "a=rtcp-fb:96 nack pli",
            "a=rtpmap:97 rtx/90000", "a=fmtp:97 apt=96", "a=ssrc-group:FID 2222 3333", "a=ssrc:2222 cname:x", "a=ssrc:3333 cname:x"]))
        #expect(link.video?.payloadType == 96)
        let video = SDPCongestionControlTests.lines(of: answer, section: 1)
        #expect(video.first == "m=video 9 UDP/TLS/RTP/SAVPF 96", "only VP8, no RTX: \(video.first ?? "")")
        #expect(video.contains("a=rtpmap:96 VP8/90000") && !video.contains { $0.contains("H264") || $0.contains("rtx") })
        #expect(link.video?.remoteSSRCs.contains(2222) == true, "the media SSRC of the FID group")
    }

    @Test func anOfferWithoutVP8HasItsVideoRefusedAndItsAudioKept() throws {
        let (answer, link) = try Self.answer(Self.offer(videoFormats: "102", video: ["a=rtpmap:102 H264/90000"]))
        #expect(link.video == nil)
        #expect(link.audio?.payloadType == 111)
        let video = SDPCongestionControlTests.lines(of: answer, section: 1)
        #expect(video.first?.hasPrefix("m=video 0 ") == true, "refused with port 0 (RFC 3264 section 6): \(video.first ?? "")")
    }

    /// A browser that offers three simulcast layers sends only the first when the answer has no
    /// `a=simulcast` (RFC 8853 section 5.3): the answer leaves simulcast and the rid lines out.
    @Test func simulcastOfferedIsAnsweredWithOneStream() throws {
        let (answer, link) = try Self.answer(Self.offer(videoFormats: "96", video: [
            "a=extmap:4 \(Self.midExtension)", "a=extmap:10 \(Self.rtpStreamID)", "a=extmap:11 \(Self.repairedStreamID)",
            "a=rtpmap:96 VP8/90000", "a=rid:q send", "a=rid:h send", "a=rid:f send", "a=simulcast:send q;h;f"]))
        #expect(link.video?.payloadType == 96)
        let video = SDPCongestionControlTests.lines(of: answer, section: 1)
        #expect(!video.contains { $0.hasPrefix("a=simulcast") || $0.hasPrefix("a=rid") }, "\(video)")
        #expect(!video.contains { $0.contains(Self.rtpStreamID) })
    }
}
