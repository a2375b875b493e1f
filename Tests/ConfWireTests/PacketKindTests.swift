import ConfCore
import ConfWire
import Testing

@Suite struct PacketKindTests {
    @Test func classifiesByFirstByteAsRFC7983Says() {
        #expect(PacketKind(classifying: [0, 1, 0, 0]) == .stun)
        #expect(PacketKind(classifying: [22, 254, 253]) == .dtls)
        #expect(PacketKind(classifying: [23]) == .dtls)
        #expect(PacketKind(classifying: [64, 0]) == .turnChannel)
        #expect(PacketKind(classifying: [0x80, 111]) == .rtp)
        #expect(PacketKind(classifying: [0x80, 96 | 0x80]) == .rtp)  // marker bit set, PT 96
        #expect(PacketKind(classifying: [0x80, 200]) == .rtcp)
        #expect(PacketKind(classifying: [0x81, 205]) == .rtcp)
        #expect(PacketKind(classifying: []) == .unknown)
        #expect(PacketKind(classifying: [0x80]) == .unknown)
        #expect(PacketKind(classifying: [4]) == .unknown)
        #expect(PacketKind(classifying: [255, 0]) == .unknown)
    }

    @Test func neverCrashesOnAnyInput() {
        var random = SeededRandom(seed: 5)
        for length in 0..<64 {
            for _ in 0..<200 { _ = PacketKind(classifying: (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }) }
        }
    }
}
