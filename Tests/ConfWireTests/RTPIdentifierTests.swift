import ConfWire
import Testing

@Suite struct RTPIdentifierTests {
    @Test func sequenceNumbersCompareAcrossTheWrap() {
        let last: SequenceNumber = 65_535
        #expect(last &+ 1 == 0)
        #expect((0 as SequenceNumber) &- 1 == last)
        #expect(last.distance(to: 0) == 1)
        #expect(SequenceNumber(0).distance(to: last) == -1)
        #expect(SequenceNumber(0).isNewer(than: last))
        #expect(!last.isNewer(than: 0))
        #expect(SequenceNumber(5).isNewer(than: 65_530))
        #expect(!SequenceNumber(7).isNewer(than: 7))
        // Within half the space it is ordinary order; beyond it the "older" one is ahead.
        #expect(SequenceNumber(32_767).isNewer(than: 0))
        #expect(!SequenceNumber(32_769).isNewer(than: 0))
        #expect(SequenceNumber(0).isNewer(than: 32_769))
        #expect(SequenceNumber(100).distance(to: 90) == -10)
    }

    @Test func theUnwrapperCountsOnAcrossTheWrap() {
        var unwrapper = SequenceUnwrapper()
        let first = unwrapper.unwrap(65_000)
        var extended: [UInt64] = []
        var sequence: SequenceNumber = 65_000
        for _ in 0..<1_000 {
            sequence &+= 1
            extended.append(unwrapper.unwrap(sequence))
        }
        #expect(extended == (1...1_000).map { first + UInt64($0) })
        #expect(unwrapper.unwrap(65_000) == first)  // a very late one keeps its place
    }

    @Test func payloadTypesAreSevenBits() {
        #expect(PayloadType(rawValue: 127)?.rawValue == 127)
        #expect(PayloadType(rawValue: 128) == nil)
        #expect(PayloadType(masking: 0x80 | 111) == 111)
        // The marker bit and the payload type share a byte: a packet keeps both apart.
        let packet = RTPPacket(marker: true, payloadType: 127, sequenceNumber: 1, timestamp: 2, ssrc: 3, payload: [])
        #expect(RTPPacket(bytes: packet.bytes)?.payloadType == 127 && RTPPacket(bytes: packet.bytes)?.marker == true)
    }

    @Test func ssrcsPrintAsSDPWritesThem() {
        #expect(SSRC(3_484_078_953).description == "3484078953")
    }
}
