import ConfCore
import Testing
@testable import ConfCall

/// The estimator, a pacer and a sender at the estimate over a simulated bottleneck (see
/// `CongestionScenario`): the aims of issue 10. The figures measured (seed 7, 40 ms one way):
/// on 1 Mbit/s the target passes 1 Mbit/s at 2 s, is cut to 844 kbit/s at 3 s, then saws between
/// 840 and 1040 kbit/s with the queue under 70 ms; after a drop from 2 Mbit/s to 500 kbit/s it is
/// under 550 kbit/s within 1 s; after the way back it passes 1.5 Mbit/s 15 s later (8 % per second).
@Suite struct BandwidthConvergenceTests {
    static let second = Duration.seconds(1)

    @Test func convergesOnOneMegabitWithinFiveSecondsAndKeepsTheQueueShort() {
        var run = CongestionScenario(capacity: 1_000_000)
        run.run(for: .seconds(5))
        #expect(run.target >= 800_000 && run.target <= 1_100_000)
        let deliveredBefore = run.deliveries.count
        run.run(for: .seconds(15))
        let steady = run.targets(from: .zero + .seconds(5))
        #expect(steady.lowest >= 800_000, "the target fell below 80 % of the link")
        #expect(steady.highest <= 1_100_000, "the target ran away above the link")
        #expect(steady.highest > steady.lowest + 50_000, "a controller that probes keeps moving")
        let steadyDeliveries = run.deliveries[deliveredBefore...]
        let worstQueue = steadyDeliveries.map(\.queued).max() ?? .seconds(9)
        #expect(worstQueue < .milliseconds(100))
        let carried = steadyDeliveries.count > 1 ? Self.bitsPerSecond(steadyDeliveries) : 0
        #expect(carried >= 850_000, "the link carried \(carried) bit/s at steady state")
        let reported = run.estimator.statistics.queueDelay ?? .seconds(9)
        #expect(reported < .milliseconds(100))
    }

    @Test func followsACapacityDropAndRecovers() {
        var run = CongestionScenario(capacity: 2_000_000)
        run.run(for: .seconds(20))
        #expect(run.target >= 1_600_000, "did not reach the 2 Mbit/s link")
        let drop = run.now
        run.path.capacity = 500_000
        run.run(for: .seconds(10))
        let under = run.firstTime(from: drop) { $0 < 550_000 }
        #expect(under.map { $0.since(drop) <= .seconds(2) } ?? false, "still above 550 kbit/s 2 s after the drop")
        let degraded = run.targets(from: drop + .seconds(3))
        #expect(degraded.highest <= 600_000 && degraded.lowest >= 250_000)
        let lastSecond = run.deliveries.filter { $0.sentAt >= run.now - Self.second }
        #expect((lastSecond.map(\.queued).max() ?? .seconds(9)) < .milliseconds(100), "the queue did not drain")

        let recovery = run.now
        run.path.capacity = 2_000_000
        run.run(for: .seconds(20))
        let back = run.firstTime(from: recovery) { $0 > 1_500_000 }
        #expect(back.map { $0.since(recovery) <= .seconds(16) } ?? false, "not back above 1.5 Mbit/s 16 s after recovery")
    }

    @Test func theReceiversClockOffsetDoesNotMatter() {
        var near = CongestionScenario(capacity: 1_000_000)
        near.receiverOffset = .zero
        var far = CongestionScenario(capacity: 1_000_000)
        far.receiverOffset = .seconds(86_400 * 365)
        near.run(for: .seconds(8))
        far.run(for: .seconds(8))
        #expect(near.samples.map(\.target) == far.samples.map(\.target))
    }

    static func bitsPerSecond(_ deliveries: ArraySlice<SimulatedBottleneck.Delivery>) -> Int {
        guard let first = deliveries.first, let last = deliveries.last, last.arrival > first.arrival else { return 0 }
        let bytes = deliveries.dropFirst().reduce(0) { $0 + $1.size }
        return Int(Double(bytes) * 8 / (last.arrival.since(first.arrival).milliseconds / 1000))
    }
}

/// A receiver that sends transport feedback with its regular RTCP (GStreamer's webrtcbin, about
/// every 700 ms; 1 s here too; or, as webrtcbin was traced doing, a burst of small messages
/// every 900 ms) behind a 300 kbit/s bottleneck with 500 ms of queue. Before
/// `StandingQueueGuard` the estimate sawed around the capacity over a queue that never emptied:
/// packets sent from 8 s on waited 77 ms on average at 700 ms and 232 ms at 1 s (seed 7).
@Suite struct SparseFeedbackTests {
    @Test(arguments: [(700, nil), (1000, nil), (900, 5)]) func theQueueEmptiesAndTheLinkStaysFull(every: Int, packetsPerMessage: Int?) {
        var run = CongestionScenario(capacity: 300_000)
        run.feedbackInterval = .milliseconds(Int64(every))
        run.packetsPerFeedbackMessage = packetsPerMessage
        run.run(for: .seconds(8))
        let from = run.deliveries.count
        run.run(for: .seconds(22))
        let steady = run.deliveries[from...]
        let waits = steady.map(\.queued.milliseconds).sorted()
        let mean = waits.reduce(0, +) / Double(max(1, waits.count))
        let high = waits.isEmpty ? 9999 : waits[waits.count * 95 / 100]
        #expect(mean < 50, "packets waited \(mean) ms on average")
        #expect(high < 110, "one packet in twenty waited \(high) ms or more")
        let carried = BandwidthConvergenceTests.bitsPerSecond(steady)
        #expect(carried >= 240_000, "the link carried \(carried) bit/s")
    }

    /// A route 150 ms longer reads as a queue that cutting does not drain: after two cuts the
    /// meter takes it for the path. (GCC's own detector cuts once for the step too: 505 -> 309
    /// kbit/s without the guard; 317 then 266 with it, then growing.) Without the rebase the
    /// estimate would be cut every message, to the minimum.
    @Test func aLongerRouteIsNotTakenForAQueueForLong() {
        var run = CongestionScenario(capacity: 600_000)
        run.feedbackInterval = .milliseconds(700)
        run.run(for: .seconds(15))
        let change = run.now
        run.path.propagation += .milliseconds(150)
        run.run(for: .seconds(10))
        let after = run.targets(from: change + .seconds(3))
        #expect(after.lowest >= 240_000, "the estimate fell to \(after.lowest) bit/s on a route 150 ms longer")
        #expect(run.target > after.lowest + 20_000, "the estimate did not grow again")
        #expect((run.estimator.statistics.queueDelay ?? .seconds(9)) < .milliseconds(100))
    }
}
