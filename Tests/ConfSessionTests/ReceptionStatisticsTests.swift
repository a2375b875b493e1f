import ConfCore
import ConfSession
import ConfWire
import Testing

@Suite struct ReceptionStatisticsTests {
    @Test func lossAndJitterAsRFC3550Counts() {
        var stats = ReceptionStatistics(ssrc: 42)
        // 100 packets 20 ms apart, arriving on time, across a sequence wrap; every 10th lost.
        for k in 0..<100 where k % 10 != 5 {
            stats.update(sequence: SequenceNumber(UInt16(truncatingIfNeeded: 65_500 + k)), timestamp: UInt32(k * 960),
                         arrival: Instant(nanoseconds: UInt64(1_000_000_000 + k * 20_000_000)))
        }
        let block = stats.reportBlock(lastSR: 7, delaySinceLastSR: 9)
        #expect(block.ssrc == 42 && block.lastSR == 7 && block.delaySinceLastSR == 9)
        #expect(block.cumulativeLost == 10)
        #expect(block.fractionLost == UInt8(10 * 256 / 100))
        #expect(block.highestSequence == UInt32(65_536 + 65_500 + 99))
        #expect(stats.jitterMilliseconds < 0.01)
        // The next report covers only what came since: nothing lost.
        for k in 100..<150 {
            stats.update(sequence: SequenceNumber(UInt16(truncatingIfNeeded: 65_500 + k)), timestamp: UInt32(k * 960),
                         arrival: Instant(nanoseconds: UInt64(1_000_000_000 + k * 20_000_000 + (k % 2) * 4_000_000)))
        }
        let next = stats.reportBlock(lastSR: 0, delaySinceLastSR: 0)
        #expect(next.fractionLost == 0 && next.cumulativeLost == 10)
        #expect(stats.jitterMilliseconds > 1 && stats.jitterMilliseconds < 5)  // 4 ms alternating delay
    }
}
