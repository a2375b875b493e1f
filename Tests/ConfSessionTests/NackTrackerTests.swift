import ConfCore
import ConfSession
import ConfWire
import Testing

@Suite struct NackTrackerTests {
    static func at(_ ms: UInt64) -> Instant { Instant(nanoseconds: ms * 1_000_000) }

    @Test func gapsAreAskedForAtOnceThenOnceMoreThenGivenUp() {
        var tracker = NackTracker()
        #expect(tracker.received(65_534, now: Self.at(0)).isEmpty)
        #expect(tracker.received(2, now: Self.at(10)) == [65_535, 0, 1])  // across the wrap
        #expect(tracker.received(0, now: Self.at(20)).isEmpty)  // one came late: no longer missing
        #expect(tracker.due(now: Self.at(50)).isEmpty)
        #expect(tracker.due(now: Self.at(120)) == [65_535, 1])  // the second and last request, oldest first
        #expect(tracker.due(now: Self.at(300)).isEmpty)
        #expect(tracker.missingCount == 0)
    }

    @Test func reorderingInsideAWindowIsNotLoss() {
        var tracker = NackTracker()
        _ = tracker.received(10, now: Self.at(0))
        #expect(tracker.received(12, now: Self.at(1)) == [11])
        #expect(tracker.received(11, now: Self.at(2)).isEmpty)
        #expect(tracker.missingCount == 0)
    }

    @Test func nackPacketsRoundTrip() {
        let nack = RTCPPacket.negativeAcknowledgement(sender: 1, media: 2, lost: [100, 101, 116, 117, 300])
        guard case .negativeAcknowledgement(let sender, let media, let lost)? = RTCPPacket.parseCompound(nack.bytes)?.first else {
            Issue.record("not parsed")
            return
        }
        #expect(sender == 1 && media == 2)
        #expect(lost.map(\.rawValue).sorted() == [100, 101, 116, 117, 300])
        #expect(nack.bytes.count == 12 + 3 * 4)  // 100 covers 101 and 116; 117 and 300 need entries
    }
}
