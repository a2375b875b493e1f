import ConfWire
import Testing

/// Written from RFC 6716 sections 3.1 (the TOC byte, Table 2), 3.2 (codes 0 to 3) and 3.4 (R1,
/// R3, R5).
@Suite struct OpusPacketDurationTests {
    /// TOC = configuration << 3 | stereo << 2 | code.
    static func toc(_ configuration: UInt8, code: UInt8) -> UInt8 { configuration << 3 | code }

    @Test(arguments: [
        (0, 480), (1, 960), (2, 1_920), (3, 2_880),  // SILK narrowband 10/20/40/60 ms
        (11, 2_880),  // SILK wideband 60 ms
        (12, 480), (13, 960), (15, 960),  // hybrid 10/20 ms
        (16, 120), (17, 240), (18, 480), (19, 960), (31, 960),  // CELT 2.5/5/10/20 ms
    ] as [(UInt8, Int)])
    func oneFramePacketsPlayTheirConfigurationsFrame(_ configuration: UInt8, _ samples: Int) {
        #expect(OpusPacketDuration.samples(in: [Self.toc(configuration, code: 0), 0xAA]) == samples)
        #expect(OpusPacketDuration.samples(in: [Self.toc(configuration, code: 0) | 0x04]) == samples, "stereo changes nothing")
    }

    @Test func twoAndManyFramePackets() {
        #expect(OpusPacketDuration.samples(in: [Self.toc(19, code: 1), 1, 2]) == 1_920)  // two equal 20 ms CELT frames
        #expect(OpusPacketDuration.samples(in: [Self.toc(19, code: 2), 1, 9]) == 1_920)
        #expect(OpusPacketDuration.samples(in: [Self.toc(19, code: 3), 3, 1, 2, 3]) == 2_880)  // three frames, CBR
        #expect(OpusPacketDuration.samples(in: [Self.toc(16, code: 3), 48]) == 5_760)  // 48 x 2.5 ms: the 120 ms most
        #expect(OpusPacketDuration.samples(in: [Self.toc(19, code: 3), 0x80 | 2, 1, 1]) == 1_920)  // VBR flag, count in the low six bits
    }

    @Test(arguments: [
        [],  // R1: at least one byte
        [Self.toc(19, code: 1), 1],  // R3: code 1 needs an even number of bytes after the TOC
        [Self.toc(19, code: 3)],  // no frame count byte
        [Self.toc(19, code: 3), 0],  // R5: at least one frame
        [Self.toc(3, code: 3), 3],  // R5: three 60 ms frames are more than 120 ms
        [Self.toc(16, code: 3), 49],  // 49 x 2.5 ms
    ] as [[UInt8]])
    func malformedFramingIsNil(_ packet: [UInt8]) {
        #expect(OpusPacketDuration.samples(in: packet) == nil)
    }

    @Test func everyByteStringIsAnsweredWithoutTrapping() {
        for first in 0...255 {
            for second in [0, 1, 63, 64, 255] {
                if let samples = OpusPacketDuration.samples(in: [UInt8(first), UInt8(second)]) {
                    #expect((120...OpusPacketDuration.maximumSamples).contains(samples))
                }
            }
        }
    }
}
