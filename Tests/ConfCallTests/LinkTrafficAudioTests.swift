@testable import ConfCall
import ConfWire
import Testing

/// The audio's share of a link, as `LinkTraffic` counts it for the video budget.
@Suite struct LinkTrafficAudioTests {
    static func audio(_ opus: [UInt8]) -> PacedPacket {
        PacedPacket(packet: RTPPacket(payloadType: 111, sequenceNumber: 1, timestamp: 0, ssrc: 5, extensions: [1: [0x9F]], payload: opus),
                    kind: .audio, transportSequenceID: 3)
    }

    /// Three frames in one 60 ms packet count as they would in three 20 ms packets: so a paused
    /// link's budget does not grow by the headers it saves, and resuming (back to 20 ms packets)
    /// does not pause it again at once.
    @Test func aPacketOfThreeFramesCountsAsThreeOneFramePackets() throws {
        let frames = (0..<3).map { _ in [UInt8(0xF8)] + Array(repeating: 0x55, count: 40) }
        var short = LinkTraffic(), long = LinkTraffic()
        for _ in 0..<100 { for frame in frames { short.sent(Self.audio(frame)) } }
        let joined = try #require(OpusFrameJoin.join(frames))
        for _ in 0..<100 { long.sent(Self.audio(joined)) }
        // Each 20 ms: 41 bytes of Opus (TOC and frame), 12 of RTP header, 12 of extensions (the
        // transport sequence number and the audio level, RFC 8285's one-byte form), 10 of SRTP
        // tag: 75 bytes, 30 kbit/s.
        #expect(abs(short.audioBitsPerSecond - 30_000) < 1)
        // The joined packet's two bytes of framing are shared by its frames.
        #expect(abs(long.audioBitsPerSecond - short.audioBitsPerSecond) < 300, "\(long.audioBitsPerSecond) against \(short.audioBitsPerSecond)")
    }
}
