import ConfCore
import Testing
@testable import ConfCall

@Suite struct LinkCongestionControllerTests {
    static let t0 = Instant(nanoseconds: 7_000_000_000)

    @Test func numbersPacketsInTheOrderTheyLeave() {
        var link = LinkCongestionController<String>()
        link.enqueue("video", size: 1000, priority: .video, now: Self.t0)
        link.enqueue("resent", size: 1000, priority: .retransmission, now: Self.t0)
        link.enqueue("audio", size: 100, priority: .audio, now: Self.t0)
        let first = link.poll(now: Self.t0)
        #expect(first.map(\.item) == ["audio", "resent"])
        #expect(first.map(\.sequence) == [1, 2])
        let deadline = link.nextDeadline ?? Self.t0
        #expect(deadline > Self.t0)
        #expect(link.poll(now: deadline).map(\.sequence) == [3])
        #expect(link.nextDeadline == nil)
    }

    /// A share of a common bottleneck replaces the link's own estimate, for the pacer too, and
    /// updates of the estimate do not undo it; nil gives the estimate back.
    @Test func aShareTakesThePlaceOfTheEstimateUntilItIsLifted() {
        var link = LinkCongestionController<Int>()
        link.onReceiverEstimate(bitsPerSecond: 500_000, at: Self.t0)
        link.share(200_000, now: Self.t0)
        #expect(link.target == 200_000 && link.pacer.pacingRate == 500_000)
        link.onReceiverEstimate(bitsPerSecond: 450_000, at: Self.t0 + .milliseconds(10))
        #expect(link.target == 200_000 && link.estimator.target == 450_000)
        link.share(nil, now: Self.t0 + .milliseconds(20))
        #expect(link.target == 450_000 && link.pacer.pacingRate == 2.5 * 450_000)
    }

    /// Feedback goes to the estimate and the pacer follows: 2.5 × the target.
    @Test func thePacerFollowsTheEstimate() {
        var link = LinkCongestionController<Int>()
        #expect(link.pacer.pacingRate == 2.5 * 300_000)
        link.onReceiverEstimate(bitsPerSecond: 100_000, at: Self.t0)
        #expect(link.target == 100_000 && link.pacer.pacingRate == 250_000)
        for id in 0..<10 { link.enqueue(id, size: 500, priority: .video, now: Self.t0) }
        var now = Self.t0
        var sent: [(item: Int, sequence: Int64)] = []
        while sent.count < 10, let next = link.nextDeadline {
            now = max(now, next)
            sent += link.poll(now: now)
        }
        link.onFeedback(sent.map { PacketFeedback(sequence: $0.sequence, arrival: now + .milliseconds(Int($0.sequence))) },
                        at: now + .milliseconds(50))
        #expect(link.statistics.delayBased != nil, "the sends were recorded and matched")
        link.onLossReport(fraction: 0, at: now + .milliseconds(60))  // ignored: transport feedback came
        #expect(link.pacer.pacingRate == 2.5 * Double(link.target))
    }

    @Test func wholeSequenceNumbersFromTheirLow16Bits() {
        var link = LinkCongestionController<Int>()
        #expect(link.sequence(nearest: 5) == 5)
        for _ in 0..<70_000 { link.enqueue(0, size: 0, priority: .audio, now: Self.t0) }
        let sent = link.poll(now: Self.t0)
        #expect(sent.last?.sequence == 70_000)
        #expect(link.sequence(nearest: UInt16(70_000 & 0xFFFF)) == 70_000)
        #expect(link.sequence(nearest: 65_535) == 65_535)  // just before the wrap
        #expect(link.sequence(nearest: 10_000) == 75_536)  // just after the next
    }
}
