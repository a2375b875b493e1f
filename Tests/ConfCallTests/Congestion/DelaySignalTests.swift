import ConfCore
import Testing
@testable import ConfCall

@Suite struct InterArrivalGrouperTests {
    static let sender = Instant(nanoseconds: 3_000_000_000)
    static let receiver = Instant(nanoseconds: 900_000_000_000)
    /// `reported`: when the feedback came, on our clock (ms after `sender`); the arrival by default.
    static func add(_ grouper: inout InterArrivalGrouper, sent: Double, arrived: Double, reported: Double? = nil) -> InterArrivalGrouper.Delta? {
        grouper.add(sentAt: sender + .milliseconds(exactly: sent), arrival: receiver + .milliseconds(exactly: arrived),
                    now: sender + .milliseconds(exactly: reported ?? arrived))
    }

    @Test func groupsPacketsSentWithinFiveMilliseconds() throws {
        var grouper = InterArrivalGrouper()
        #expect(Self.add(&grouper, sent: 0, arrived: 50) == nil)
        #expect(Self.add(&grouper, sent: 2, arrived: 53) == nil)
        #expect(Self.add(&grouper, sent: 10, arrived: 65) == nil)  // opens the second group
        #expect(Self.add(&grouper, sent: 14, arrived: 70) == nil)
        let delta = try #require(Self.add(&grouper, sent: 20, arrived: 78))  // the third: the first two are complete
        // Last send 2 → 14, last arrival 53 → 70.
        #expect(delta.sendDelta == 12 && delta.arrivalDelta == 17)
        #expect(delta.arrival == Self.receiver + .milliseconds(70))
    }

    @Test func aPacketQueuedBehindItsGroupJoinsIt() {
        var grouper = InterArrivalGrouper()
        _ = Self.add(&grouper, sent: 0, arrived: 50)
        // Sent 20 ms later but arriving 2 ms later: it waited behind the first.
        #expect(Self.add(&grouper, sent: 20, arrived: 52) == nil)
        #expect(Self.add(&grouper, sent: 40, arrived: 90) == nil)  // a new group, but no earlier one to compare
        #expect(Self.add(&grouper, sent: 60, arrived: 110) != nil)
    }

    @Test func skipsReorderedPacketsAndResetsOnAClockJump() {
        var grouper = InterArrivalGrouper()
        _ = Self.add(&grouper, sent: 0, arrived: 50)
        _ = Self.add(&grouper, sent: 10, arrived: 60)
        #expect(Self.add(&grouper, sent: 5, arrived: 61) == nil)  // sent before its group began
        #expect(Self.add(&grouper, sent: 20, arrived: 70) != nil)
        // The receiver's clock leaps 10 s while ours moves 10 ms: seen when that group completes.
        #expect(Self.add(&grouper, sent: 30, arrived: 10_070, reported: 80) != nil)
        #expect(Self.add(&grouper, sent: 40, arrived: 10_080, reported: 90) == nil)
        #expect(Self.add(&grouper, sent: 50, arrived: 10_090, reported: 100) == nil)  // the first group since the reset
        #expect(Self.add(&grouper, sent: 60, arrived: 10_100, reported: 110) == nil)  // its successor
        #expect(Self.add(&grouper, sent: 70, arrived: 10_110, reported: 120)?.arrivalDelta == 10)
    }
}

@Suite struct TrendlineAndDetectorTests {
    /// Groups every 5 ms whose arrivals spread by `ratio` × the send spacing: the detector's view of
    /// a path carrying 1 / ratio of what we send.
    static func feed(ratio: Double, groups: Int, trendline: inout TrendlineEstimator, detector: inout OveruseDetector,
                     from start: Double = 0) -> [BandwidthUsage] {
        (0..<groups).map { n in
            let arrival = start + Double(n + 1) * 5 * ratio
            let trend = trendline.update(sendDelta: 5, arrivalDelta: 5 * ratio, arrival: arrival)
            return detector.detect(trend: trend, deltaCount: trendline.deltaCount, sendDelta: 5, arrival: arrival)
        }
    }

    @Test func theTrendIsHowFastTheQueueGrows() {
        var trendline = TrendlineEstimator()
        for n in 0..<200 { trendline.update(sendDelta: 5, arrivalDelta: 6, arrival: Double(n) * 6) }
        // 1 ms more per 6 ms of arrivals.
        #expect(abs(trendline.trend - 1.0 / 6) < 0.01)
        for n in 200..<400 { trendline.update(sendDelta: 5, arrivalDelta: 5, arrival: 1200 + Double(n - 200) * 5) }
        #expect(abs(trendline.trend) < 0.01)
    }

    @Test func aGrowingQueueIsOveruseAfterTenMillisecondsAndADrainingOneUnderuse() throws {
        var trendline = TrendlineEstimator()
        var detector = OveruseDetector()
        let steady = Self.feed(ratio: 1, groups: 100, trendline: &trendline, detector: &detector)
        #expect(steady.allSatisfy { $0 == .normal })
        let growing = Self.feed(ratio: 1.2, groups: 60, trendline: &trendline, detector: &detector, from: 500)
        let firstOveruse = try #require(growing.firstIndex(of: .overusing))
        #expect(firstOveruse >= 2, "signalled before the trend stayed over the threshold for 10 ms")
        #expect(firstOveruse < 20)
        let draining = Self.feed(ratio: 0.5, groups: 60, trendline: &trendline, detector: &detector, from: 900)
        #expect(draining.last == .underusing)
    }

    @Test func theThresholdFollowsTheTrendSlowlyWithinItsBounds() {
        var detector = OveruseDetector()
        // |m| = 60 × trend × 4 = 24 ms: within 15 ms of 12.5, so the threshold rises towards it.
        for n in 0..<100 { detector.detect(trend: 0.1, deltaCount: 100, sendDelta: 5, arrival: Double(n) * 5) }
        #expect(detector.threshold > 12.5 && detector.threshold <= 24)
        // A huge spike is ignored.
        let before = detector.threshold
        detector.detect(trend: 10, deltaCount: 100, sendDelta: 5, arrival: 505)
        #expect(detector.threshold == before)
        // Quiet: falls, but never below 6 ms.
        for n in 0..<2000 { detector.detect(trend: 0, deltaCount: 100, sendDelta: 5, arrival: 510 + Double(n) * 5) }
        #expect(detector.threshold == 6)
    }

    @Test func nonsenseDeltasLeaveTheFilterAsItWas() {
        var trendline = TrendlineEstimator()
        for n in 0..<30 { trendline.update(sendDelta: 5, arrivalDelta: 6, arrival: Double(n) * 6) }
        let before = trendline.trend
        trendline.update(sendDelta: .nan, arrivalDelta: 6, arrival: 200)
        trendline.update(sendDelta: 5, arrivalDelta: .infinity, arrival: 200)
        #expect(trendline.trend == before)
    }
}
