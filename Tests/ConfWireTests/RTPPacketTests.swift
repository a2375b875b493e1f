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

    /// Written from RFC 8285 section 4.2 and RFC 3550 section 5.1: a stamped element replaces the
    /// packet's own of that id, elements go in id order padded to a word, padding ends with its count.
    @Test func stampingAndPaddingAreWrittenInOnePass() throws {
        let packet = RTPPacket(payloadType: 96, sequenceNumber: 0x0102, timestamp: 0x0304_0506, ssrc: 0x0708_090A,
                               extensions: [5: [0xAA, 0xBB], 2: [0x7F]], payload: [0xEE])
        let stamped = packet.bytes(stamping: (id: 5, data: [0x01, 0x02]), padding: 3)
        #expect(stamped == [0xB0, 96, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A,
                            0xBE, 0xDE, 0, 2, 0x20, 0x7F, 0x51, 0x01, 0x02, 0, 0, 0,
                            0xEE, 0, 0, 3])
        let parsed = try #require(RTPPacket(bytes: stamped))
        #expect(parsed.extensions == [2: [0x7F], 5: [0x01, 0x02]] && parsed.payload == [0xEE])
        #expect(packet.bytes(stamping: (id: 9, data: [1, 2])).count == 12 + 4 + 8 + 1)
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
