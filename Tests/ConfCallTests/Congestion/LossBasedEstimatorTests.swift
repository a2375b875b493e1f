import ConfCore
import Testing
@testable import ConfCall

@Suite struct LossBasedEstimatorTests {
    static let t0 = Instant(nanoseconds: 9_000_000_000)
    static func at(_ milliseconds: Int) -> Instant { t0 + .milliseconds(milliseconds) }

    @Test func heavyLossCutsByHalfTheFractionAtMostOncePerIntervalAndRoundTrip() {
        var loss = LossBasedEstimator()
        loss.onReports(lost: 20, total: 100, rate: 1_000_000, ceiling: 2_000_000, roundTrip: .milliseconds(100), now: Self.at(0))
        #expect(loss.bound == 900_000)
        loss.onReports(lost: 20, total: 100, rate: 900_000, ceiling: 2_000_000, roundTrip: .milliseconds(100), now: Self.at(300))
        #expect(loss.bound == 900_000, "cut again before 300 ms + the round trip")
        loss.onReports(lost: 40, total: 100, rate: 900_000, ceiling: 2_000_000, roundTrip: .milliseconds(100), now: Self.at(400))
        #expect(loss.bound == 900_000 * 0.8)
    }

    @Test func lowLossGrowsTheBoundUntilItNoLongerLimits() {
        var loss = LossBasedEstimator()
        loss.onReports(lost: 50, total: 100, rate: 400_000, ceiling: 500_000, roundTrip: .zero, now: Self.at(0))
        #expect(loss.bound == 300_000)
        loss.onReports(lost: 1, total: 100, rate: 300_000, ceiling: 500_000, roundTrip: .zero, now: Self.at(100))
        #expect(loss.bound == 315_000)
        loss.onReports(lost: 5, total: 100, rate: 315_000, ceiling: 500_000, roundTrip: .zero, now: Self.at(200))
        #expect(loss.bound == 315_000, "between 2 and 10 %: held")
        for n in 3..<20 { loss.onReports(lost: 0, total: 100, rate: 400_000, ceiling: 500_000, roundTrip: .zero, now: Self.at(n * 100)) }
        #expect(loss.bound == nil)
    }

    @Test func heavyLossCutsOnlyWhenTheQueuesSayCongestionOrItIsPastTheRandomLimit() {
        var loss = LossBasedEstimator()
        loss.onReports(lost: 20, total: 100, rate: 1_000_000, ceiling: 2_000_000, roundTrip: .zero, congested: false, now: Self.at(0))
        #expect(loss.bound == nil && loss.lastFraction == 0.2, "20 % with empty queues: random loss, held")
        loss.onReports(lost: 20, total: 100, rate: 1_000_000, ceiling: 2_000_000, roundTrip: .zero, congested: true, now: Self.at(100))
        #expect(loss.bound == 900_000, "the same loss with growing queues is congestion")
        loss.onReports(lost: 30, total: 100, rate: 900_000, ceiling: 2_000_000, roundTrip: .zero, congested: false, now: Self.at(500))
        #expect(loss.bound == 900_000, "one window past 25 % is not yet an average past it")
        for n in 1...3 {
            loss.onReports(lost: 40, total: 100, rate: 900_000, ceiling: 2_000_000, roundTrip: .zero, congested: false, now: Self.at(500 + n * 500))
        }
        // Windows of 20, 20, 30, 40, 40, 40 %: from the fifth the average (28 %, then 30 %) is past 25 %.
        #expect(loss.bound == 900_000 * 0.8 * 0.8, "past 25 % on average it cuts whatever the queues say")
    }

    /// A policer drops without queueing: a window that lost more than half is congestion at once,
    /// with empty queues and before any average.
    @Test func aWindowThatLostMoreThanHalfCutsWhateverTheQueuesSay() {
        var loss = LossBasedEstimator()
        loss.onReports(lost: 12, total: 20, rate: 1_000_000, ceiling: 2_000_000, roundTrip: .zero, congested: false, now: Self.at(0))
        #expect(loss.bound == 1_000_000 * 0.7)
    }

    /// 15 % random loss in windows of 20 packets: 6 lost (30 %) now and then. With empty queues
    /// that is never congestion; an average over the windows stays near 15 %.
    @Test func fifteenPercentRandomLossInSmallWindowsNeverCutsAPathWithEmptyQueues() {
        var loss = LossBasedEstimator()
        var random = SeededRandom(seed: 15)
        var cut = 0
        for n in 0..<2_000 {
            let lost = (0..<20).filter { _ in Double.random(in: 0..<1, using: &random) < 0.15 }.count
            if lost >= 6 { cut += 1 }
            loss.onReports(lost: lost, total: 20, rate: 1_000_000, ceiling: 2_000_000, roundTrip: .zero, congested: false, now: Self.at(n * 400))
        }
        #expect(cut > 50, "windows over 25 % did come: \(cut)")
        #expect(loss.bound == nil, "\(String(describing: loss.bound))")
    }

    @Test func moderateLossAloneSetsNoBound() {
        var loss = LossBasedEstimator()
        for n in 0..<50 { loss.onReports(lost: 8, total: 100, rate: 1_000_000, ceiling: 1_000_000, roundTrip: .zero, now: Self.at(n * 100)) }
        #expect(loss.bound == nil && loss.lastFraction == 0.08)
    }

    @Test func smallReportsAddUpToAWindow() {
        var loss = LossBasedEstimator()
        for n in 0..<3 { loss.onReports(lost: 3, total: 6, rate: 1_000_000, ceiling: nil, roundTrip: .zero, now: Self.at(n)) }
        #expect(loss.lastFraction == nil, "18 packets are not a window")
        loss.onReports(lost: 0, total: 2, rate: 1_000_000, ceiling: nil, roundTrip: .zero, now: Self.at(3))
        #expect(loss.lastFraction == 9.0 / 20)
    }

    /// A peer with neither transport feedback nor REMB: the receiver reports' fraction is all
    /// there is, so the bound is the estimate and grows from the rate.
    @Test func withoutOtherBoundsTheLossBoundIsTheEstimate() {
        var loss = LossBasedEstimator()
        loss.onFraction(0, rate: 300_000, ceiling: nil, roundTrip: .zero, now: Self.at(0))
        #expect(loss.bound == 315_000)
        loss.onFraction(0.05, rate: 315_000, ceiling: nil, roundTrip: .zero, now: Self.at(1000))
        #expect(loss.bound == 315_000)
        loss.onFraction(.nan, rate: 315_000, ceiling: nil, roundTrip: .zero, now: Self.at(2000))
        loss.onFraction(7, rate: 315_000, ceiling: nil, roundTrip: .zero, now: Self.at(3000))  // clamped to 1
        #expect(loss.bound == 315_000 * 0.5 && loss.lastFraction == 1)
    }
}
