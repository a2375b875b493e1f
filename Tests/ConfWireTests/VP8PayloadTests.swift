import ConfCore
import ConfWire
import Testing

@Suite struct VP8PayloadTests {
    @Test func descriptorsRoundTripAndReadOptionalFields() throws {
        let d = VP8PayloadDescriptor(nonReference: true, startOfPartition: true, partitionIndex: 0, pictureID: 0x1234)
        let (parsed, offset) = try #require(VP8PayloadDescriptor.parse(d.bytes + [0x10]))
        #expect(parsed == d && offset == 4)
        // A 7-bit picture id, TL0PICIDX and TID/KEYIDX (RFC 7741 section 4.2): 5 bytes of descriptor.
        let (full, fullOffset) = try #require(VP8PayloadDescriptor.parse([0x90, 0xF0, 0x05, 0x07, 0x40, 0xAA]))
        #expect(full.pictureID == 5 && full.startOfPartition && fullOffset == 5)
        #expect(VP8PayloadDescriptor.parse([0x10, 0x9D])?.1 == 1)  // no X: one byte
    }

    @Test(arguments: [[], [0x80], [0x80, 0x80], [0x80, 0x80, 0x81], [0x90, 0x40, 0x01], [0x10]] as [[UInt8]])
    func truncatedDescriptorsAreRefused(_ bytes: [UInt8]) {
        #expect(VP8PayloadDescriptor.parse(bytes) == nil)
    }

    static func frame(_ size: Int, key: Bool, seed: UInt8) -> [UInt8] {
        (0..<size).map { i in i == 0 ? (key ? 0x10 : 0x11) : UInt8(truncatingIfNeeded: i &* 7 &+ Int(seed)) }
    }

    @Test func framesSplitUnderTheMTUAndReassemble() {
        var packetizer = VP8Packetizer(maximumPayload: 1100, firstPictureID: 32_760)
        var assembler = VP8FrameAssembler()
        var sequence: SequenceNumber = 65_530
        var delivered: [VP8FrameAssembler.Frame] = []
        for (n, size) in [5000, 300, 1096, 1097, 20_000].enumerated() {
            let frame = Self.frame(size, key: n == 0, seed: UInt8(n))
            let payloads = packetizer.packetize(frame)
            #expect(payloads.allSatisfy { $0.count <= 1100 })
            for (i, payload) in payloads.enumerated() {
                delivered += assembler.insert(sequence: sequence, timestamp: UInt32(n * 3000), marker: i == payloads.count - 1, payload: payload)
                sequence &+= 1
            }
            #expect(delivered.last?.data == frame)
        }
        #expect(delivered.count == 5 && delivered[0].isKeyFrame && !delivered[1].isKeyFrame)
    }

    @Test func reorderingAndDuplicatesStillCompleteFrames() {
        var packetizer = VP8Packetizer(maximumPayload: 500)
        var assembler = VP8FrameAssembler()
        let frame = Self.frame(2400, key: true, seed: 1)
        let payloads = packetizer.packetize(frame)
        var random = SeededRandom(seed: 3)
        var order = Array(payloads.indices) + [2, 0]
        order.shuffle(using: &random)
        var delivered: [VP8FrameAssembler.Frame] = []
        for i in order {
            delivered += assembler.insert(sequence: SequenceNumber(UInt16(100 + i)), timestamp: 9000, marker: i == payloads.count - 1, payload: payloads[i])
        }
        #expect(delivered.count == 1 && delivered[0].data == frame)
    }

    /// Six frames 66 ms apart, the third packet of the second lost; `resendAfter` delivers it late.
    static func lossyRun(resendAfter: Duration?) -> (timestamps: [UInt32], dropped: Int) {
        var packetizer = VP8Packetizer(maximumPayload: 500)
        var assembler = VP8FrameAssembler()
        var sequence: SequenceNumber = 0
        var delivered: [VP8FrameAssembler.Frame] = []
        var lost: (SequenceNumber, [UInt8])?
        for n in 0..<6 {
            let now = Instant.zero + .milliseconds(Int64(n) * 66)
            let payloads = packetizer.packetize(Self.frame(1800, key: false, seed: UInt8(n)))
            for (i, payload) in payloads.enumerated() {
                defer { sequence &+= 1 }
                if n == 1 && i == 2 {
                    lost = (sequence, payload)
                    continue
                }
                delivered += assembler.insert(sequence: sequence, timestamp: UInt32(n * 3000), marker: i == payloads.count - 1,
                                              payload: payload, now: now)
            }
            if n == 1, let resendAfter, let (s, p) = lost {
                delivered += assembler.insert(sequence: s, timestamp: 3000, marker: false, payload: p, now: now + resendAfter)
            }
        }
        return (delivered.map(\.timestamp), assembler.droppedFrames)
    }

    @Test func aLostPacketDropsOnlyItsFrameOnceThePatienceIsOver() {
        let run = Self.lossyRun(resendAfter: nil)
        #expect(run.timestamps == [0, 6000, 9000, 12_000, 15_000])  // the frames after the gap waited 150 ms, then went on
        #expect(run.dropped == 1)
    }

    @Test func aRetransmissionInTimeSavesTheFrame() {
        let run = Self.lossyRun(resendAfter: .milliseconds(20))
        #expect(run.timestamps == [0, 3000, 6000, 9000, 12_000, 15_000])
        #expect(run.dropped == 0)
    }

    @Test func randomPayloadsNeverCrash() {
        var random = SeededRandom(seed: 23)
        var assembler = VP8FrameAssembler()
        for n in 0..<5_000 {
            let payload = (0..<Int(random.next() % 40)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            _ = assembler.insert(sequence: SequenceNumber(UInt16(truncatingIfNeeded: random.next())), timestamp: UInt32(n / 3), marker: random.next() % 3 == 0,
                                 payload: payload)
        }
    }
}
