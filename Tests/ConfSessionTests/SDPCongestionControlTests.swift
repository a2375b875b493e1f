import ConfSession
import ConfWire
import Testing

/// Transport-wide congestion control in offer/answer, with SDP written by hand from RFC 8285
/// (a=extmap; section 6: the answer keeps the offer's id), RFC 4585 (a=rtcp-fb, "*" for every
/// format), draft-holmer-rmcat-transport-wide-cc-extensions-01 (its URI; transport-cc) and
/// draft-alvestrand-rmcat-remb-03 (goog-remb).
@Suite struct SDPCongestionControlTests {
    static let local = SDPNegotiationStandardsTests.local
    static let tcc = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"
    static let audioLevel = "urn:ietf:params:rtp-hdrext:ssrc-audio-level"

    /// A BUNDLE offer of Opus/111 and VP8/96 with `audio` and `video` lines in their sections.
    static func offer(audio: [String], video: [String]) -> String {
        var lines = ["v=0", "o=- 4611731400430051336 2 IN IP4 127.0.0.1", "s=-", "t=0 0", "a=group:BUNDLE 0 1"]
        for (mid, kind, format, map, extra) in [("0", "audio", "111", "opus/48000/2", audio), ("1", "video", "96", "VP8/90000", video)] {
            lines += ["m=\(kind) 9 UDP/TLS/RTP/SAVPF \(format)", "c=IN IP4 0.0.0.0", "a=ice-ufrag:EsAw", "a=ice-pwd:P2uYro0UCOQ4zxjKXaWCBui1",
                      "a=fingerprint:sha-256 \(SDPNegotiationStandardsTests.hex(1, 32))", "a=setup:actpass", "a=mid:\(mid)", "a=sendrecv",
                      "a=rtcp-mux", "a=rtpmap:\(format) \(map)"] + extra
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    static func answer(_ text: String) throws -> (SessionDescription, NegotiatedLink) {
        try SDPNegotiation.answer(to: try SessionDescription.parse(text), from: local, sessionID: 77)
    }

    /// The lines of the `index`th m= section of `sdp`.
    static func lines(of sdp: SessionDescription, section index: Int) -> [String] {
        var sections: [[String]] = []
        for line in sdp.serialized.split(separator: "\r\n").map(String.init) {
            if line.hasPrefix("m=") { sections.append([]) }
            if !sections.isEmpty { sections[sections.count - 1].append(line) }
        }
        return sections[index]
    }

    @Test func confOffersTheExtensionAtThreeAndTransportCCOnOpusAndVP8AndREMBOnVP8() {
        let offer = SDPNegotiation.offer(from: Self.local, sessionID: 1)
        let audio = Self.lines(of: offer, section: 0), video = Self.lines(of: offer, section: 1)
        #expect(audio.contains("a=extmap:1 \(Self.audioLevel)") && audio.contains("a=extmap:3 \(Self.tcc)"))
        #expect(audio.contains("a=rtcp-fb:111 transport-cc"))
        #expect(video.contains("a=extmap:3 \(Self.tcc)") && video.contains("a=rtcp-fb:96 transport-cc"))
        #expect(!video.contains { $0.hasPrefix("a=extmap:1 ") })
        #expect(video.contains("a=rtcp-fb:96 goog-remb") && !audio.contains { $0.hasSuffix("goog-remb") })
    }

    @Test func confToConfAgreesOnBothSides() throws {
        let offer = SDPNegotiation.offer(from: Self.local, sessionID: 1)
        let (answer, answererLink) = try SDPNegotiation.answer(to: try SessionDescription.parse(offer.serialized), from: Self.local, sessionID: 2)
        let offererLink = try SDPNegotiation.accept(answer: try SessionDescription.parse(answer.serialized), to: offer)
        for link in [answererLink, offererLink] {
            for media in [link.audio, link.video] {
                #expect(media?.transportSequenceExtension == 3)
                #expect(media?.transportFeedback == true)
            }
            // REMB on video only (the downlink share), as browsers negotiate it.
            #expect(link.audio?.receiverEstimatedBitrate == false && link.video?.receiverEstimatedBitrate == true)
            #expect(link.audio?.audioLevelExtension == 1)
        }
    }

    @Test func aBrowserLikeOfferIsAnsweredWithWhatItOffered() throws {
        let (answer, link) = try Self.answer(Self.offer(
            audio: ["a=extmap:1 \(Self.audioLevel)", "a=extmap:3 \(Self.tcc)", "a=rtcp-fb:111 transport-cc"],
            video: ["a=extmap:3 \(Self.tcc)", "a=rtcp-fb:96 goog-remb", "a=rtcp-fb:96 transport-cc", "a=rtcp-fb:96 ccm fir",
                    "a=rtcp-fb:96 nack", "a=rtcp-fb:96 nack pli"]))
        let audio = Self.lines(of: answer, section: 0), video = Self.lines(of: answer, section: 1)
        #expect(audio.contains("a=extmap:3 \(Self.tcc)") && audio.contains("a=rtcp-fb:111 transport-cc"))
        #expect(!audio.contains("a=rtcp-fb:111 goog-remb"))
        #expect(video.contains("a=extmap:3 \(Self.tcc)") && video.contains("a=rtcp-fb:96 transport-cc") && video.contains("a=rtcp-fb:96 goog-remb"))
        #expect(video.contains("a=rtcp-fb:96 nack pli"))
        #expect(link.audio?.transportSequenceExtension == 3 && link.video?.transportSequenceExtension == 3)
        #expect(link.audio?.transportFeedback == true && link.video?.transportFeedback == true)
        #expect(link.audio?.receiverEstimatedBitrate == false && link.video?.receiverEstimatedBitrate == true)
    }

    @Test(arguments: [1, 5, 14] as [UInt8])
    func theAnswerKeepsTheOffersID(_ id: UInt8) throws {
        // webrtcbin puts transport-cc at 1 with no audio level; others pick other ids.
        let (answer, link) = try Self.answer(Self.offer(audio: ["a=extmap:\(id) \(Self.tcc)", "a=rtcp-fb:111 transport-cc"],
                                                        video: ["a=extmap:\(id) \(Self.tcc)"]))
        #expect(Self.lines(of: answer, section: 0).contains("a=extmap:\(id) \(Self.tcc)"))
        #expect(Self.lines(of: answer, section: 1).contains("a=extmap:\(id) \(Self.tcc)"))
        #expect(link.audio?.transportSequenceExtension == id && link.video?.transportSequenceExtension == id)
        #expect(link.audio?.audioLevelExtension == nil)
        // Feedback only where offered: on audio, not on video.
        #expect(link.audio?.transportFeedback == true && link.video?.transportFeedback == false)
        #expect(!Self.lines(of: answer, section: 1).contains { $0.contains("transport-cc") })
    }

    @Test func anOfferWithoutItGetsAnAnswerWithoutIt() throws {
        let (answer, link) = try Self.answer(Self.offer(audio: ["a=extmap:1 \(Self.audioLevel)"], video: ["a=rtcp-fb:96 nack"]))
        #expect(!answer.serialized.contains(Self.tcc) && !answer.serialized.contains("transport-cc"))
        #expect(link.audio?.transportSequenceExtension == nil && link.video?.transportSequenceExtension == nil)
        #expect(link.audio?.transportFeedback == false && link.video?.transportFeedback == false)
        #expect(link.audio?.audioLevelExtension == 1)
    }

    @Test func anIDOneByteHeadersCannotCarryIsNotTaken() throws {
        // RFC 8285 section 4.2: one-byte elements carry ids 1 to 14; 15 and up need the two-byte form.
        let (answer, link) = try Self.answer(Self.offer(audio: ["a=extmap:15 \(Self.tcc)"], video: ["a=extmap:200 \(Self.tcc)"]))
        #expect(!answer.serialized.contains(Self.tcc))
        #expect(link.audio?.transportSequenceExtension == nil && link.video?.transportSequenceExtension == nil)
    }

    @Test func feedbackOfferedForEveryFormatIsAnsweredForTheChosenOne() throws {
        let (answer, link) = try Self.answer(Self.offer(audio: [], video: ["a=rtcp-fb:* transport-cc", "a=rtcp-fb:* goog-remb"]))
        #expect(Self.lines(of: answer, section: 1).contains("a=rtcp-fb:96 transport-cc"))
        #expect(link.video?.transportFeedback == true && link.video?.receiverEstimatedBitrate == true)
        #expect(link.audio?.transportFeedback == false)
    }

    @Test func anAnswerWithoutItLeavesItOff() throws {
        let offer = SDPNegotiation.offer(from: Self.local, sessionID: 1)
        var (answer, _) = try SDPNegotiation.answer(to: offer, from: Self.local, sessionID: 2)
        answer.media[0].extensions.removeAll { $0.uri == Self.tcc }
        answer.media[1].rtcpFeedback.removeAll { $0.value == "transport-cc" }
        answer.media[1].rtcpFeedback.append(("96", "goog-remb"))
        let link = try SDPNegotiation.accept(answer: try SessionDescription.parse(answer.serialized), to: offer)
        #expect(link.audio?.transportSequenceExtension == nil && link.audio?.transportFeedback == true)
        #expect(link.video?.transportSequenceExtension == 3 && link.video?.transportFeedback == false)
        #expect(link.video?.receiverEstimatedBitrate == true)
        #expect(link.audio?.audioLevelExtension == 1)
    }
}
