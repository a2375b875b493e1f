import ConfWire
import Testing

@Suite struct RTPHeaderExtensionsTests {
    @Test func theOrderElementsAreSetInDoesNotMatter() {
        var backwards = RTPHeaderExtensions()
        backwards[9] = [3]
        backwards[4] = [2, 2]
        backwards[1] = [1]
        let forwards: RTPHeaderExtensions = [1: [1], 4: [2, 2], 9: [3]]
        #expect(backwards == forwards)
        #expect(backwards.map(\.id) == [1, 4, 9])
        #expect(backwards.map { Array($0.data) } == [[1], [2, 2], [3]])
    }

    @Test func settingAnIdAgainReplacesItsDataAndNilRemovesIt() {
        var extensions: RTPHeaderExtensions = [2: [7], 5: [8, 8], 11: [9]]
        extensions[5] = [1, 2, 3, 4]
        #expect(extensions[5] == [1, 2, 3, 4] && extensions[2] == [7] && extensions[11] == [9])
        extensions[5] = nil
        #expect(extensions == [2: [7], 11: [9]] && extensions[5] == nil)
        extensions[2] = nil
        extensions[11] = nil
        #expect(extensions.isEmpty && extensions[3] == nil)
    }

    @Test func elementsSetOutOfOrderGoOnTheWireInOrderAndComeBackEqual() throws {
        var packet = RTPPacket(payloadType: 96, sequenceNumber: 9, timestamp: 1, ssrc: 2, payload: [5])
        packet.extensions[7] = [0xA1, 0xA2, 0xA3]
        packet.extensions[2] = [0xB1]
        let bytes = packet.bytes
        // 0xBEDE, 2 words: (2, L=0) B1, (7, L=2) A1 A2 A3, one byte of padding.
        #expect(Array(bytes[12..<24]) == [0xBE, 0xDE, 0, 2, 0x20, 0xB1, 0x72, 0xA1, 0xA2, 0xA3, 0, 0])
        let parsed = try #require(RTPPacket(bytes: bytes))
        #expect(parsed == packet && parsed.payload == [5])
    }

    /// RFC 8285 section 4.2 leaves an id sent twice undefined: the later element is kept, as a
    /// dictionary would have kept it.
    @Test func anIdSentTwiceKeepsTheLaterElement() throws {
        let bytes: [UInt8] = [0x90, 96, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3,
                              0xBE, 0xDE, 0, 2, 0x30, 0xAA, 0x10, 0x11, 0x30, 0xBB, 0, 0, 0xEE]
        let packet = try #require(RTPPacket(bytes: bytes))
        #expect(packet.extensions == [1: [0x11], 3: [0xBB]] && packet.payload == [0xEE])
    }
}
