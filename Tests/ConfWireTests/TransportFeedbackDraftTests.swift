import ConfCore
import ConfWire
import Testing

/// Transport-wide feedback and its header extension written byte by byte from
/// draft-holmer-rmcat-transport-wide-cc-extensions-01 (section 2: the extension; section 3.1: the
/// feedback layout, the symbols of 3.1.1, the run length chunk of 3.1.3, the status vector chunk
/// of 3.1.4, the receive deltas of 3.1.5), not from captures.
@Suite struct TransportFeedbackDraftTests {
    /// The fixed part after the RTCP header: SSRCs, base, status count, reference time, fb count.
    static func fixed(base: UInt16, count: UInt16, reference: [UInt8], feedbackCount: UInt8) -> [UInt8] {
        [0, 0, 0, 1, 0, 0, 0, 2, UInt8(base >> 8), UInt8(base & 0xFF), UInt8(count >> 8), UInt8(count & 0xFF)] + reference + [feedbackCount]
    }

    /// V=2, P=0, FMT=15, PT=205, length in 32-bit words minus one.
    static func packet(_ body: [UInt8]) -> [UInt8] { [0x8F, 205, 0, UInt8(body.count / 4)] + body }

    @Test func aTwoBitVectorAcrossTheSequenceWrapWithSmallLargeAndNegativeDeltas() throws {
        // 65534 received +1 ms (4 × 250 µs), 65535 lost, 0 received -1 ms (large or negative),
        // 1 received +0: one two-bit vector |1|1|01 00 10 01 00 00 00| = 0xD240.
        let body = Self.fixed(base: 65534, count: 4, reference: [0xFF, 0xFF, 0xFF], feedbackCount: 7)
            + [0xD2, 0x40] + [0x04] + [0xFF, 0xFC] + [0x00] + [0, 0]
        let expected = TransportFeedback(senderSSRC: 1, mediaSSRC: 2, baseSequence: 65534, referenceTime: -1, feedbackPacketCount: 7,
                                         packets: [.received(delta: 4), .notReceived, .received(delta: -4), .received(delta: 0)])
        #expect(RTCPPacket.parseCompound(Self.packet(body)) == [.transportFeedback(expected)])
        #expect(expected.bytes == Self.packet(body))
        let arrivals = expected.arrivals(unwrappedBase: 131_070, reference: Instant(nanoseconds: 1_000_000_000))
        #expect(arrivals.map(\.sequence) == [131_070, 131_071, 131_072, 131_073])
        // The sender unwraps the base against what it sent: just after the wrap, or just before.
        #expect(expected.unwrappedBase(near: 131_073) == 131_070)
        #expect(expected.unwrappedBase(near: 131_060) == 131_070)
        #expect(expected.unwrappedBase(near: 65_536) == 65_534)
        let expectedArrivals: [UInt64?] = [1_001_000_000, nil, 1_000_000_000, 1_000_000_000]
        #expect(arrivals.map(\.arrival) == expectedArrivals.map { $0.map(Instant.init(nanoseconds:)) })
    }

    @Test func runLengthChunks() throws {
        // |0|00|0000011011101|: 221 not received; |0|01|0000000000011|: 3 received, small deltas.
        let body = Self.fixed(base: 100, count: 224, reference: [0x00, 0x01, 0x00], feedbackCount: 0)
            + [0x00, 0xDD, 0x20, 0x03] + [1, 2, 3] + [0]
        let feedback = try #require(TransportFeedback(rtcpBody: body))
        #expect(feedback.packets.count == 224)
        #expect(feedback.packets.prefix(221).allSatisfy { $0 == .notReceived })
        #expect(Array(feedback.packets.suffix(3)) == [.received(delta: 1), .received(delta: 2), .received(delta: 3)])
        #expect(feedback.referenceTime == 256)
        #expect(feedback.bytes == Self.packet(body))
    }

    @Test func aOneBitVector() throws {
        // |1|0|0 1 1 1 1 1 0 0 0 1 1 1 0 0|: 14 one-bit symbols, 8 of them received.
        let body = Self.fixed(base: 9, count: 14, reference: [0, 0, 0], feedbackCount: 255) + [0x9F, 0x1C] + [10, 20, 30, 40, 50, 60, 70, 80] + [0, 0]
        let feedback = try #require(TransportFeedback(rtcpBody: body))
        let received = [false, true, true, true, true, true, false, false, false, true, true, true, false, false]
        #expect(feedback.packets.map(\.isReceived) == received)
        let deltas: [Int16] = feedback.packets.compactMap { if case .received(let d) = $0 { d } else { nil } }
        #expect(deltas == [10, 20, 30, 40, 50, 60, 70, 80])
        #expect(feedback.bytes == Self.packet(body))
    }

    @Test func aLastVectorsSymbolsBeyondTheStatusCountAreIgnored() throws {
        // Status count 2, but the vector names 14: only the first two count, and need deltas.
        let body = Self.fixed(base: 0, count: 2, reference: [0, 0, 0], feedbackCount: 0) + [0xBF, 0xFF] + [5, 6]
        let feedback = try #require(TransportFeedback(rtcpBody: body))
        #expect(feedback.packets == [.received(delta: 5), .received(delta: 6)])
    }

    @Test func theReferenceTimeIsSigned24Bits() throws {
        for (bytes, value) in [([0x80, 0x00, 0x00], -8_388_608), ([0x7F, 0xFF, 0xFF], 8_388_607), ([0xFF, 0xFF, 0xFE], -2)] as [([UInt8], Int32)] {
            let body = Self.fixed(base: 0, count: 1, reference: bytes, feedbackCount: 0) + [0x20, 0x01, 0x00, 0x00]
            let feedback = try #require(TransportFeedback(rtcpBody: body))
            #expect(feedback.referenceTime == value)
            #expect(feedback.bytes == Self.packet(body))
        }
        #expect(TransportFeedback.referenceTime(wrapping: 1 << 24) == 0)
        #expect(TransportFeedback.referenceTime(wrapping: (1 << 23) + 5) == -(1 << 23) + 5)
    }

    @Test func paddingSignalledWithThePBitIsStripped() throws {
        // One received packet with a small delta, then 5 bytes of padding, the last one counting them.
        let body = Self.fixed(base: 1, count: 1, reference: [0, 0, 0], feedbackCount: 0) + [0x20, 0x01, 0x09] + [0, 0, 0, 0, 5]
        let compound = [0xAF, 205, 0, UInt8(body.count / 4)] + body
        let expected = TransportFeedback(senderSSRC: 1, mediaSSRC: 2, baseSequence: 1, referenceTime: 0, feedbackPacketCount: 0,
                                         packets: [.received(delta: 9)])
        #expect(RTCPPacket.parseCompound(compound) == [.transportFeedback(expected)])
    }

    @Test func theDraftsOwnTwoBitExampleUsesTheReservedSymbolAndIsRefused() {
        // Section 3.1.4's example |1|1|00 11 01 01 01 00 00| holds 11, which section 3.1.1 reserves.
        let body = Self.fixed(base: 0, count: 7, reference: [0, 0, 0], feedbackCount: 0) + [0xCD, 0x50] + [1, 1, 1, 1] + [0, 0]
        #expect(TransportFeedback(rtcpBody: body) == nil)
        #expect(RTCPPacket.parseCompound(Self.packet(body)) == [.other(packetType: 205)])
    }

    @Test func theSequenceNumberExtensionIsTwoBigEndianBytesInAOneByteElement() throws {
        let packet = RTPPacket(payloadType: 96, sequenceNumber: 1, timestamp: 0, ssrc: 5,
                               extensions: [3: TransportSequenceNumber(SequenceNumber(0xABCD)).bytes], payload: [7])
        // 0xBEDE, one word; ID 3 with L = 1 (two bytes), 0xAB 0xCD, one byte of padding.
        #expect(Array(packet.bytes[12..<20]) == [0xBE, 0xDE, 0x00, 0x01, 0x31, 0xAB, 0xCD, 0x00])
        let parsed = try #require(RTPPacket(bytes: packet.bytes))
        #expect(TransportSequenceNumber(try #require(parsed.extensions[3]))?.sequence == SequenceNumber(0xABCD))
        #expect(TransportSequenceNumber([0xAB]) == nil)
        #expect(TransportSequenceNumber([0xAB, 0xCD, 0x80, 0x01]) == nil)
    }
}
