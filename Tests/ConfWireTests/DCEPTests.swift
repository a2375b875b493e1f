import ConfCore
import ConfWire
import Testing

@Suite struct DCEPTests {
    @Test func openAndAckRoundTrip() {
        let open = DCEPMessage.open(label: "chat", protocol: "", channelType: DCEPMessage.reliable, priority: 256, reliability: 0)
        #expect(open.bytes.prefix(12) == [0x03, 0x00, 0x01, 0x00, 0, 0, 0, 0, 0, 4, 0, 0])
        #expect(DCEPMessage(bytes: open.bytes) == open)
        #expect(DCEPMessage(bytes: [0x02]) == .ack)
    }

    @Test(arguments: [[], [0x03], [0x03, 0, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0x61], [0x03, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0xFF], [0x07], [0x03] + [UInt8](repeating: 0, count: 11) + [1]])
    func malformedMessagesAreRefused(_ bytes: [UInt8]) {
        #expect(DCEPMessage(bytes: bytes) == nil)
    }

    @Test func randomBytesNeverCrash() {
        var random = SeededRandom(seed: 9)
        for length in 0..<40 {
            for _ in 0..<100 {
                var bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                if !bytes.isEmpty { bytes[0] = 0x03 }
                _ = DCEPMessage(bytes: bytes)
            }
        }
    }
}
