import ConfCore
import ConfWire
import Testing

/// The jitter buffer on a seeded simulated network: a sender emitting a 20 ms frame per tick of
/// its own clock, a network adding delay, jitter, loss, duplication and reordering, and a
/// receiver popping a frame per tick of *its* clock (which may run at a slightly different rate).
struct SimulatedAudioLink {
    var lossRate = 0.0
    var duplicateRate = 0.0
    var baseDelayMs = 30.0
    var jitterMs = 0.0
    /// Occasional spikes: this probability per packet of an extra `spikeMs`.
    var spikeRate = 0.0
    var spikeMs = 0.0
    /// Sender clock rate relative to the receiver's (1.001 = 0.1 % fast).
    var senderRate = 1.0
    /// Stalls: packets sent in [start, start + stallMs) are held and arrive together at its end.
    var stalls: [Double] = []
    var stallMs = 0.0
    /// Packets all of one size (a steady tone); else one in five is small, as a pause is in speech.
    var steady = false
    var seed: UInt64 = 1

    struct Result {
        var statistics: AudioJitterBuffer.Statistics
        /// Sequence numbers of the frames played, in order (payload = sequence).
        var playedOrder: [UInt16]
        /// Buffer delay in frames, sampled each tick after startup.
        var bufferedFrames: [Int]
        var stretchesAfterStart = 0
        /// Frames concealed while packets were still coming (not after the sender stopped).
        var concealedWhileActive = 0
        var sent = 0
        var dropped = 0
    }

    func run(seconds: Double) -> Result {
        var random = SeededRandom(seed: seed)
        func uniform() -> Double { Double(random.next() >> 11) / Double(1 << 53) }
        var buffer = AudioJitterBuffer()
        var inFlight: [(arrival: Double, sequence: UInt16, timestamp: UInt32)] = []
        var result = Result(statistics: .init(), playedOrder: [], bufferedFrames: [])
        let frames = Int(seconds * 50)
        // Sender: frame k leaves at k * 20 ms of its clock = k * 20 / senderRate ms of ours.
        for k in 0..<frames {
            let sentAt = Double(k) * 20 / senderRate
            if uniform() < lossRate {
                result.dropped += 1
                continue
            }
            var delay = baseDelayMs + jitterMs * uniform()
            if uniform() < spikeRate { delay += spikeMs }
            if let stall = stalls.first(where: { sentAt >= $0 && sentAt < $0 + stallMs }) { delay = max(delay, stall + stallMs + baseDelayMs - sentAt) }
            let sequence = UInt16(truncatingIfNeeded: 65_000 + k)  // wraps during the run
            inFlight.append((sentAt + delay, sequence, UInt32(truncatingIfNeeded: k * 960)))
            if uniform() < duplicateRate { inFlight.append((sentAt + delay + 5, sequence, UInt32(truncatingIfNeeded: k * 960))) }
            result.sent += 1
        }
        inFlight.sort { $0.arrival < $1.arrival }
        var index = 0
        var started = false
        // The receiver's playout ticks every 20 ms from the first packet's arrival, as
        // CallEngine.playOut schedules it.
        let phase = inFlight.first.map { $0.arrival.truncatingRemainder(dividingBy: 20) } ?? 0
        for tick in 0..<(frames + 50) {
            let now = Double(tick) * 20 + phase
            while index < inFlight.count, inFlight[index].arrival <= now {
                let p = inFlight[index]
                buffer.insert(sequence: SequenceNumber(p.sequence), timestamp: p.timestamp, payload: [UInt8(p.sequence >> 8), UInt8(p.sequence & 0xFF)] + [UInt8](repeating: 0, count: !steady && p.sequence % 5 == 0 ? 0 : 38),
                              arrival: Instant(nanoseconds: UInt64(p.arrival * 1_000_000)))
                index += 1
            }
            switch buffer.pop(now: Instant(nanoseconds: UInt64(now * 1_000_000))) {
            case .waiting, .continuation: break
            case .frame(let payload):
                started = true
                result.playedOrder.append(UInt16(payload[0]) << 8 | UInt16(payload[1]))
            case .lost(let next):
                if started && index < inFlight.count {
                    result.concealedWhileActive += 1
                    if next == nil { result.stretchesAfterStart += 1 }
                }
            }
            if started && index < inFlight.count { result.bufferedFrames.append(buffer.bufferedFrames) }
        }
        result.statistics = buffer.statistics
        return result
    }
}

@Suite struct AudioJitterBufferTests {
    @Test func aCleanLinkPlaysEverythingInOrderWithASmallDelay() {
        let result = SimulatedAudioLink(jitterMs: 2).run(seconds: 30)
        // The start may fill a frame more than the link needs; that frame is given back once.
        #expect(result.statistics.played + result.statistics.skipped == result.sent)
        #expect(result.statistics.skipped <= 1)
        #expect(result.concealedWhileActive == 0)
        #expect(result.playedOrder == result.playedOrder.sorted { UInt16(truncatingIfNeeded: $1 &- $0) < 32768 && $0 != $1 })
        #expect(result.bufferedFrames.max()! <= 3, "delay \(result.bufferedFrames.max()!) frames")
    }

    @Test func lossIsConcealedAndCounted() {
        let result = SimulatedAudioLink(lossRate: 0.05, jitterMs: 5, seed: 2).run(seconds: 30)
        #expect(result.statistics.lost >= result.dropped - 2 && result.statistics.lost <= result.dropped)
        // A frame waited for (a run of losses shows no successor) is given back later, no more.
        #expect(result.statistics.played + result.statistics.skipped == result.sent)
        #expect(result.statistics.skipped <= result.stretchesAfterStart + 1)
        // Concealment is for what was lost; waiting for a late packet happens only after a run of
        // losses (nothing newer to show the gap).
        #expect(result.concealedWhileActive <= result.dropped + result.stretchesAfterStart)
        #expect(result.stretchesAfterStart <= result.dropped / 10)
    }

    @Test func reorderingAndDuplicatesAreAbsorbed() {
        let result = SimulatedAudioLink(duplicateRate: 0.1, jitterMs: 45, seed: 3).run(seconds: 30)  // 45 ms jitter reorders
        #expect(result.statistics.duplicates > 0)
        #expect(result.statistics.played + result.statistics.late == result.sent)
        #expect(Double(result.statistics.late) < Double(result.sent) * 0.02, "late: \(result.statistics.late)")
        #expect(result.bufferedFrames.max()! <= 8)
    }

    @Test func jitterBurstsRaiseTheDelayThenItComesBack() {
        let result = SimulatedAudioLink(jitterMs: 5, spikeRate: 0.01, spikeMs: 120, seed: 4).run(seconds: 60)
        #expect(result.bufferedFrames.max()! <= 20)
        #expect(Double(result.concealedWhileActive) < Double(result.sent) * 0.05, "concealed \(result.concealedWhileActive)")
        let lastSeconds = result.bufferedFrames.suffix(500)
        #expect(lastSeconds.reduce(0, +) / lastSeconds.count <= 10)
    }

    @Test(arguments: [1.001, 0.999])
    func clockDriftNeitherGrowsTheDelayNorStarves(_ rate: Double) {
        // 10 minutes: 0.1 % drift is 600 ms, which a naive buffer would add or run out of.
        let result = SimulatedAudioLink(jitterMs: 4, senderRate: rate, seed: 5).run(seconds: 600)
        let late = result.bufferedFrames.suffix(3000)
        #expect(late.max()! <= 6, "delay grew to \(late.max()!) frames")
        #expect(Double(result.concealedWhileActive) < Double(result.sent) * 0.003, "concealed \(result.concealedWhileActive)")
        if rate > 1 { #expect(result.statistics.skipped > 0) }
    }

    /// Packets of three 20 ms frames (Opus at 60 ms, RFC 7587): each plays at its turn, the next two
    /// pops continue it, and a lost one is concealed for three frames, without FEC (its in-band
    /// FEC would rebuild its last frame, not its first).
    @Test func packetsOfSeveralFramesPlayAFrameAPop() {
        var buffer = AudioJitterBuffer()
        func at(_ ms: Int64) -> Instant { Instant(nanoseconds: UInt64(1_000_000_000 + ms * 1_000_000)) }
        for sequence in [0, 1, 3] as [UInt16] {  // 2 never comes
            buffer.insert(sequence: SequenceNumber(sequence), timestamp: UInt32(sequence) * 2_880, payload: [UInt8(sequence)], frames: 3,
                          arrival: at(Int64(sequence) * 60))
        }
        #expect(buffer.bufferedFrames == 12)  // sequences 0...3 as frames, the missing one counted in place
        var pops: [AudioJitterBuffer.Playout] = []
        for tick in 0..<12 { pops.append(buffer.pop(now: at(200 + Int64(tick) * 20))) }
        #expect(pops == [.frame([0]), .continuation, .continuation, .frame([1]), .continuation, .continuation,
                         .lost(next: nil), .lost(next: nil), .lost(next: nil), .frame([3]), .continuation, .continuation])
        #expect(buffer.statistics.played == 9 && buffer.statistics.lost == 3)
    }
}
