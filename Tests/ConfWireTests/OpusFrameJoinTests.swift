import ConfWire
import Testing

/// Written from RFC 6716 sections 3.1 (the TOC byte), 3.2.1 (frame lengths), 3.2.5 (code 3
/// packets) and 3.4 (R2, R5).
@Suite struct OpusFrameJoinTests {
    /// A one-frame packet (code 0) of hybrid fullband 20 ms (configuration 15), mono.
    static let hybrid: UInt8 = 15 << 3
    static func frame(_ bytes: [UInt8], toc: UInt8 = hybrid) -> [UInt8] { [toc] + bytes }

    @Test func framesOfOneLengthAreJoinedWithoutLengths() {
        let joined = OpusFrameJoin.join([Self.frame([1, 2]), Self.frame([3, 4]), Self.frame([5, 6])])
        // TOC with code 3; count byte: v = 0 (CBR), p = 0, M = 3; then the frames, back to back.
        #expect(joined == [Self.hybrid | 3, 3, 1, 2, 3, 4, 5, 6])
        #expect(joined.flatMap(OpusPacketDuration.samples(in:)) == 2_880)
    }

    @Test func framesOfSeveralLengthsCarryEachButTheLast() {
        let joined = OpusFrameJoin.join([Self.frame([1]), Self.frame([2, 2, 2]), Self.frame([])])
        // v = 1 (VBR), M = 3; lengths 1 and 3; the last frame's length is what is left (zero).
        #expect(joined == [Self.hybrid | 3, 0x80 | 3, 1, 3, 1, 2, 2, 2])
    }

    @Test(arguments: [(251, [251]), (252, [252, 0]), (255, [255, 0]), (256, [252, 1]), (300, [252, 12]), (1_275, [255, 255])])
    func longFramesHaveTwoByteLengths(_ length: Int, _ encoded: [UInt8]) {
        let joined = OpusFrameJoin.join([Self.frame(Array(repeating: 7, count: length)), Self.frame([9])])
        #expect(joined.map { Array($0[2..<(2 + encoded.count)]) } == encoded)
        #expect(joined?.count == 2 + encoded.count + length + 1)
    }

    @Test func onePacketIsLeftAsItIs() {
        #expect(OpusFrameJoin.join([Self.frame([1, 2, 3])]) == [Self.hybrid, 1, 2, 3])
    }

    @Test(arguments: [
        [],
        [[]],  // no TOC byte
        [frame([1]), frame([2], toc: hybrid | 0x04)],  // stereo and mono
        [frame([1]), frame([2], toc: 14 << 3)],  // hybrid super-wideband and fullband
        [frame([1]), [hybrid | 1, 2, 2]],  // a packet of two frames already
        [frame([1]), frame(Array(repeating: 0, count: 1_276))],  // R2: a frame of more than 1,275 bytes
        Array(repeating: frame([1]), count: 7),  // R5: 140 ms
        Array(repeating: frame([1], toc: 3 << 3), count: 3),  // three 60 ms SILK frames
    ] as [[[UInt8]]])
    func packetsThatCannotShareOneAreNotJoined(_ packets: [[UInt8]]) {
        #expect(OpusFrameJoin.join(packets) == nil)
    }

    @Test func sixFramesOfTwentyMillisecondsAreTheMost() {
        let joined = OpusFrameJoin.join(Array(repeating: Self.frame([1]), count: 6))
        #expect(joined.flatMap(OpusPacketDuration.samples(in:)) == OpusPacketDuration.maximumSamples)
    }

    @Test func canJoinWantsOneFramePacketsOfOneTOC() {
        #expect(OpusFrameJoin.canJoin(Self.frame([1]), Self.frame([2, 3])))
        #expect(!OpusFrameJoin.canJoin(Self.frame([1]), Self.frame([2], toc: Self.hybrid | 0x04)))
        #expect(!OpusFrameJoin.canJoin([Self.hybrid | 2, 1, 2], [Self.hybrid | 2, 1, 2]))
        #expect(!OpusFrameJoin.canJoin([], Self.frame([1])))
    }
}
