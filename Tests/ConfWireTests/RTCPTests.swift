import ConfCore
import ConfWire
import Testing

@Suite struct RTCPTests {
    @Test func reportsRoundTrip() {
        let block = RTCPPacket.ReportBlock(ssrc: 7, fractionLost: 3, cumulativeLost: 0x123456, highestSequence: 99, jitter: 5, lastSR: 0xAABBCCDD,
                                           delaySinceLastSR: 655)
        let sr = RTCPPacket.senderReport(.init(ssrc: 1, ntpTimestamp: 0x1122334455667788, rtpTimestamp: 3, packetCount: 4, octetCount: 5, blocks: [block]))
        let rr = RTCPPacket.receiverReport(ssrc: 2, blocks: [block, block])
        #expect(RTCPPacket.parseCompound(sr.bytes) == [sr])
        #expect(RTCPPacket.parseCompound(rr.bytes + sr.bytes) == [rr, sr])
        #expect(RTCPPacket.parseCompound(RTCPPacket.receiverReport(ssrc: 9, blocks: []).bytes) == [.receiverReport(ssrc: 9, blocks: [])])
        let pli = RTCPPacket.pictureLossIndication(sender: 1, media: 2)
        #expect(pli.bytes.count == 12)
        #expect(RTCPPacket.parseCompound(rr.bytes + pli.bytes) == [rr, pli])
    }

    @Test(arguments: [
        [], [0x80], [0x40, 201, 0, 1, 0, 0, 0, 1], [0x80, 201, 0, 5, 0, 0, 0, 1], [0x81, 201, 0, 1, 0, 0, 0, 1],
        [0x80, 200, 0, 1, 0, 0, 0, 1], [0x80, 201, 0xFF, 0xFF],
    ] as [[UInt8]])
    func brokenFramingIsRefused(_ bytes: [UInt8]) {
        #expect(RTCPPacket.parseCompound(bytes) == nil)
    }

    @Test func randomBytesNeverCrash() {
        var random = SeededRandom(seed: 13)
        for length in 0..<120 {
            for _ in 0..<60 {
                var bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                if bytes.count > 1 { bytes[0] = 0x80 | (bytes[0] & 0x1F); bytes[1] = 200 + bytes[1] % 2 }
                _ = RTCPPacket.parseCompound(bytes)
            }
        }
    }
}
