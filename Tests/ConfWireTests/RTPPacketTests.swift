import ConfCore
import ConfWire
import Testing

@Suite struct RTPPacketTests {
    @Test func roundTripsWithExtensionsAndCSRCs() throws {
        let packet = RTPPacket(marker: true, payloadType: 111, sequenceNumber: 65_535, timestamp: 0xDEAD_BEEF, ssrc: 42, csrcs: [7, 8],
                               extensions: [1: AudioLevel(voiceActivity: true, level: 30).bytes, 3: [1, 2, 3]], payload: [9, 9, 9])
        let parsed = try #require(RTPPacket(bytes: packet.bytes))
        #expect(parsed == packet)
        #expect(AudioLevel(parsed.extensions[1]!) == AudioLevel(voiceActivity: true, level: 30))
    }

    @Test func paddingIsRemoved() throws {
        var bytes = RTPPacket(payloadType: 96, sequenceNumber: 1, timestamp: 2, ssrc: 3, payload: [1, 2, 3]).bytes
        bytes[0] |= 0x20
        bytes += [0, 0, 3]
        #expect(RTPPacket(bytes: bytes)?.payload == [1, 2, 3])
    }

    @Test(arguments: [
        [], [0x80, 111], Array(repeating: 0, count: 12),  // version 0
        [0x8F] + Array(repeating: 0, count: 11),  // 15 CSRCs announced, none there
        [0x90] + Array(repeating: 0, count: 11) + [0xBE, 0xDE, 0, 9],  // extension longer than the packet
        [0xA0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 200],  // padding longer than the packet
        [0xA0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],  // padding of zero bytes
        [0x90] + Array(repeating: 0, count: 11) + [0xBE, 0xDE, 0, 1, 0x1F, 1, 2, 3],  // element longer than the extension
    ] as [[UInt8]])
    func malformedPacketsAreRefused(_ bytes: [UInt8]) {
        #expect(RTPPacket(bytes: bytes) == nil)
    }

    @Test func randomBytesNeverCrash() {
        var random = SeededRandom(seed: 17)
        for length in 0..<80 {
            for _ in 0..<100 {
                var bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                if !bytes.isEmpty { bytes[0] = 0x80 | (bytes[0] & 0x3F) }
                if let packet = RTPPacket(bytes: bytes) { _ = packet.bytes }
            }
        }
    }

    @Test func sequenceNumbersUnwrapAcrossTheWrap() {
        var unwrapper = SequenceUnwrapper()
        let first = unwrapper.unwrap(65_534)
        #expect(unwrapper.unwrap(65_535) == first + 1)
        #expect(unwrapper.unwrap(0) == first + 2)
        #expect(unwrapper.unwrap(65_535) == first + 1)  // a late one, before the wrap
        #expect(unwrapper.unwrap(5) == first + 7)
    }
}
