import ConfCore
import ConfWire
import Testing

/// The serializer's choice of chunks, round trips, the size-bounded builder, and what a hostile
/// peer can send.
@Suite struct TransportFeedbackTests {
    static func feedback(_ packets: [TransportFeedback.PacketResult], base: SequenceNumber = 10) -> TransportFeedback {
        TransportFeedback(senderSSRC: 3, mediaSSRC: 4, baseSequence: base, referenceTime: 1000, feedbackPacketCount: 9, packets: packets)
    }

    /// Random results: mostly small deltas, some losses in runs, some large and negative deltas.
    static func randomPackets(_ count: Int, using random: inout SeededRandom) -> [TransportFeedback.PacketResult] {
        var packets: [TransportFeedback.PacketResult] = []
        while packets.count < count {
            switch random.next() % 10 {
            case 0: packets += Array(repeating: .notReceived, count: Int(random.next() % 40))
            case 1: packets.append(.received(delta: Int16(truncatingIfNeeded: random.next())))
            default: packets.append(.received(delta: Int16(random.next() % 256)))
            }
        }
        return Array(packets.prefix(count))
    }

    @Test func randomFeedbackRoundTrips() {
        var random = SeededRandom(seed: 41)
        for count in [1, 2, 6, 7, 8, 13, 14, 15, 100, 3000] {
            for _ in 0..<20 {
                let feedback = Self.feedback(Self.randomPackets(count, using: &random), base: SequenceNumber.random(using: &random))
                #expect(RTCPPacket.parseCompound(feedback.bytes) == [.transportFeedback(feedback)])
                #expect(feedback.bytes.count % 4 == 0)
            }
        }
    }

    @Test func longRunsTakeOneChunkAndMixedStatusesTakeVectors() {
        // 1000 small deltas: one run-length chunk, 1000 delta bytes; 20 of header; 1022 padded to 1024.
        #expect(Self.feedback(Array(repeating: .received(delta: 1), count: 1000)).bytes.count == 1024)
        // 20,000 lost: three runs (8191 + 8191 + 3618), no deltas.
        #expect(Self.feedback(Array(repeating: .notReceived, count: 20_000)).bytes.count == 28)
        // 140 alternating received/lost: ten one-bit vectors of 14, 70 deltas: 20 + 20 + 70 -> 112.
        let alternating = (0..<140).map { $0 % 2 == 0 ? TransportFeedback.PacketResult.received(delta: 2) : .notReceived }
        #expect(Self.feedback(alternating).bytes.count == 112)
        // 70 alternating large deltas and losses: ten two-bit vectors of 7, 35 two-byte deltas: 20 + 20 + 70.
        let large = (0..<70).map { $0 % 2 == 0 ? TransportFeedback.PacketResult.received(delta: -3) : .notReceived }
        #expect(Self.feedback(large).bytes.count == 112)
    }

    @Test func theBuilderStaysUnderItsLimitAndCountsExactly() {
        var random = SeededRandom(seed: 5)
        let packets = Self.randomPackets(5000, using: &random)
        var remaining = packets[...]
        var rebuilt: [TransportFeedback.PacketResult] = []
        while !remaining.isEmpty {
            var builder = TransportFeedbackBuilder(senderSSRC: 1, mediaSSRC: 2, baseSequence: 0, referenceTime: 0, feedbackPacketCount: 0,
                                                   maximumBytes: 300)
            while let next = remaining.first, builder.append(next) {
                remaining.removeFirst()
                #expect(builder.byteCount == builder.feedback.bytes.count)
            }
            #expect(builder.feedback.bytes.count <= 300)
            #expect(!builder.feedback.packets.isEmpty)
            rebuilt += builder.feedback.packets
        }
        #expect(rebuilt == packets)
    }

    @Test func theBuilderStopsAtTheSixteenBitStatusCount() {
        var builder = TransportFeedbackBuilder(senderSSRC: 1, mediaSSRC: 2, baseSequence: 0, referenceTime: 0, feedbackPacketCount: 0,
                                               maximumBytes: 1 << 20)
        var taken = 0
        while builder.append(.notReceived) && taken <= TransportFeedback.maximumPacketCount { taken += 1 }
        #expect(taken == 65535)
        #expect(builder.feedback.bytes.count == 20 + 2 * 9 + 2)
    }

    @Test func theSendersTimelineCarriesTheReferenceTimeAcrossItsWrap() {
        var timeline = ReferenceTimeUnwrapper()
        var feedback = Self.feedback([.received(delta: 8)])
        var references: [Instant] = []
        for value in [8_388_606, 8_388_607, -8_388_608, -8_388_607, 8_388_607] as [Int32] {  // the last one is late
            feedback.referenceTime = value
            references.append(timeline.reference(of: feedback))
        }
        let steps = zip(references, references.dropFirst()).map { Int64($1.nanoseconds) - Int64($0.nanoseconds) }
        #expect(steps == [64_000_000, 64_000_000, 64_000_000, -128_000_000])
        let arrivals = timeline.arrivals(of: feedback, unwrappedBase: 70_000)
        #expect(arrivals == [TransportFeedback.Arrival(sequence: 70_000, arrival: references[4] + .milliseconds(2))])
    }

    // MARK: Hostile input

    static func body(count: UInt16, _ rest: [UInt8]) -> [UInt8] {
        TransportFeedbackDraftTests.fixed(base: 65535, count: count, reference: [0, 0, 0], feedbackCount: 0) + rest
    }

    @Test(arguments: [
        [UInt8](repeating: 0, count: 15),  // shorter than the fixed fields
        body(count: 1, []),  // a status but no chunk
        body(count: 1, [0x20]),  // half a chunk
        body(count: 20, [0x20, 0x0A]),  // chunks cover 10 of the 20 statuses
        body(count: 2, [0x20, 0x02, 0x01]),  // two small deltas announced, one there
        body(count: 1, [0x40, 0x01, 0x01]),  // a large delta, one of its two bytes there
        body(count: 65535, [0x1F, 0xFF]),  // a count far beyond what the chunks carry
        body(count: 3, [0x60, 0x03, 1, 2, 3]),  // run of the reserved symbol 11
    ])
    func feedbackThatDoesNotCarryWhatItClaimsIsRefused(_ body: [UInt8]) {
        #expect(TransportFeedback(rtcpBody: body) == nil)
    }

    @Test func aBrokenFeedbackInAWellFramedCompoundStaysOtherAndTheRestIsRead() {
        let rr = RTCPPacket.receiverReport(ssrc: 5, blocks: [])
        let pli = RTCPPacket.pictureLossIndication(sender: 5, media: 6)
        let cut = TransportFeedbackDraftTests.packet(Self.body(count: 20, [0x20, 0x0A, 1, 2]))
        #expect(RTCPPacket.parseCompound(rr.bytes + cut + pli.bytes) == [rr, .other(packetType: 205), pli])
        var lying = cut
        lying[3] += 1  // a length one word longer than the packet
        #expect(RTCPPacket.parseCompound(rr.bytes + lying) == nil)
    }

    @Test func paddingThatLiesIsRefused() {
        let body = Self.body(count: 1, [0x20, 0x01, 0x09, 0x00])
        #expect(TransportFeedback(rtcpBody: body + [0, 0, 0, 0], padded: true) == nil)  // a padding count of 0
        #expect(TransportFeedback(rtcpBody: body + [0, 0, 0, 200], padded: true) == nil)  // more than the body
        #expect(TransportFeedback(rtcpBody: body + [0, 0, 0, 8], padded: true) == nil)  // eats the chunk and delta
    }

    @Test func theLargestCountIsBoundedByItsSixteenBits() throws {
        // Eight runs of 8191 lost and one of 7: all 65535 statuses from 36 bytes, and no more.
        let chunks: [UInt8] = Array(repeating: [UInt8]([0x1F, 0xFF]), count: 8).flatMap { $0 } + [0x00, 0x07]
        let feedback = try #require(TransportFeedback(rtcpBody: Self.body(count: 65535, chunks + [0x1F, 0xFF])))
        #expect(feedback.packets.count == 65535)
        #expect(feedback.packets.allSatisfy { $0 == .notReceived })
    }

    @Test func randomBodiesNeverCrash() {
        var random = SeededRandom(seed: 77)
        for length in 0..<80 {
            for _ in 0..<200 {
                var body = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                if body.count > 11 { body[10] = 0; body[11] = UInt8(truncatingIfNeeded: random.next() % 64) }  // plausible counts
                if let feedback = TransportFeedback(rtcpBody: body, padded: random.next() % 4 == 0) {
                    #expect(TransportFeedback(rtcpBody: Array(feedback.bytes.dropFirst(4))) == feedback)
                }
            }
        }
    }
}
