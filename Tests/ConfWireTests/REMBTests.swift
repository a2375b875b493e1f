import ConfWire
import Testing

/// REMB written from draft-alvestrand-rmcat-remb-03 section 2.2: PSFB (206), FMT 15, the unique
/// identifier "REMB", Num SSRC, a 6-bit exponent and an 18-bit mantissa, the SSRC list.
@Suite struct REMBTests {
    static func packet(exponentAndMantissa: [UInt8], ssrcCount: UInt8, ssrcs: [[UInt8]], identifier: String = "REMB") -> [UInt8] {
        let body = [0, 0, 0, 9] + [0, 0, 0, 0] + Array(identifier.utf8) + [ssrcCount] + exponentAndMantissa + ssrcs.flatMap { $0 }
        return [0x8F, 206, 0, UInt8(body.count / 4)] + body
    }

    @Test func oneMegabitForTwoStreams() {
        // 1,000,000 = 250,000 × 2^2: exponent 2, mantissa 0x3D090 -> |000010|11 1101 0000 1001 0000|.
        let bytes = Self.packet(exponentAndMantissa: [0x0B, 0xD0, 0x90], ssrcCount: 2, ssrcs: [[0, 0, 0x30, 0x39], [0xFF, 0xFF, 0xFF, 0xFF]])
        let remb = ReceiverEstimatedMaximumBitrate(senderSSRC: 9, bitrate: 1_000_000, ssrcs: [12345, 0xFFFF_FFFF])
        #expect(RTCPPacket.parseCompound(bytes) == [.receiverEstimatedMaximumBitrate(remb)])
        #expect(RTCPPacket.receiverEstimatedMaximumBitrate(remb).bytes == bytes)
    }

    @Test func theLargestExponentThatFitsSixtyFourBits() {
        // Mantissa 0x3FFFF (18 bits) × 2^46 is the largest that fits; × 2^47 does not.
        let fits = Self.packet(exponentAndMantissa: [46 << 2 | 3, 0xFF, 0xFF], ssrcCount: 0, ssrcs: [])
        #expect(RTCPPacket.parseCompound(fits) == [.receiverEstimatedMaximumBitrate(.init(senderSSRC: 9, bitrate: 0x3FFFF << 46, ssrcs: []))])
        let overflows = Self.packet(exponentAndMantissa: [47 << 2 | 3, 0xFF, 0xFF], ssrcCount: 0, ssrcs: [])
        #expect(RTCPPacket.parseCompound(overflows) == [.other(packetType: 206)])
        let zero = Self.packet(exponentAndMantissa: [63 << 2, 0, 0], ssrcCount: 0, ssrcs: [])
        #expect(RTCPPacket.parseCompound(zero) == [.receiverEstimatedMaximumBitrate(.init(senderSSRC: 9, bitrate: 0, ssrcs: []))])
    }

    @Test func aBitrateWithMoreThanEighteenSignificantBitsIsSentRoundedDown() throws {
        let remb = ReceiverEstimatedMaximumBitrate(senderSSRC: 1, bitrate: (1 << 18) + 1, ssrcs: [])
        let parsed = try #require(RTCPPacket.parseCompound(RTCPPacket.receiverEstimatedMaximumBitrate(remb).bytes))
        #expect(parsed == [.receiverEstimatedMaximumBitrate(.init(senderSSRC: 1, bitrate: 1 << 18, ssrcs: []))])
    }

    @Test func anotherApplicationLayerMessageStaysOther() {
        #expect(RTCPPacket.parseCompound(Self.packet(exponentAndMantissa: [0, 0, 1], ssrcCount: 0, ssrcs: [], identifier: "ABCD"))
                == [.other(packetType: 206)])
    }

    @Test func anSSRCCountLargerThanTheListStaysOther() {
        let bytes = Self.packet(exponentAndMantissa: [0, 0, 1], ssrcCount: 3, ssrcs: [[0, 0, 0, 1]])
        #expect(RTCPPacket.parseCompound(bytes) == [.other(packetType: 206)])
        #expect(ReceiverEstimatedMaximumBitrate(rtcpBody: Array(bytes.dropFirst(4))) == nil)
        #expect(ReceiverEstimatedMaximumBitrate(rtcpBody: Array(bytes.dropFirst(4).prefix(15))) == nil)
    }

    @Test func atMost255SSRCsAreSent() throws {
        let remb = ReceiverEstimatedMaximumBitrate(senderSSRC: 1, bitrate: 5, ssrcs: (0..<300).map { SSRC(UInt32($0)) })
        let parsed = try #require(RTCPPacket.parseCompound(RTCPPacket.receiverEstimatedMaximumBitrate(remb).bytes))
        guard case .receiverEstimatedMaximumBitrate(let back) = parsed.first else { Issue.record("not a REMB"); return }
        #expect(back.ssrcs == Array(remb.ssrcs.prefix(255)))
    }
}
