import ConfCore
import Testing
@testable import ConfCall

@Suite struct AIMDRateControlTests {
    static let t0 = Instant(nanoseconds: 2_000_000_000)

    /// Feeds `usage` every 100 ms for `seconds`, with the acknowledged rate `acknowledged`.
    static func feed(_ control: inout AIMDRateControl, _ usage: BandwidthUsage, acknowledged: Double, from start: Instant,
                     seconds: Double) -> Instant {
        var now = start
        for _ in 0..<Int(seconds * 10) {
            now = now + .milliseconds(100)
            control.update(usage, acknowledged: acknowledged, now: now)
        }
        return now
    }

    @Test func overuseCutsToBetaTimesTheAcknowledgedRateThenHolds() {
        var control = AIMDRateControl(start: 1_000_000, minimum: 30_000, maximum: 5_000_000)
        control.update(.overusing, acknowledged: 800_000, now: Self.t0)
        #expect(control.rate == 0.85 * 800_000 - 5000)
        #expect(control.state == .hold && !control.inStartup)
        control.update(.underusing, acknowledged: 800_000, now: Self.t0 + .milliseconds(100))
        #expect(control.rate == 0.85 * 800_000 - 5000)
        control.update(.normal, acknowledged: 800_000, now: Self.t0 + .milliseconds(200))
        #expect(control.state == .increase && control.rate > 0.85 * 800_000 - 5000)
    }

    /// Sending far under the rate (a paused link's audio), what the path delivered says nothing
    /// of what it can carry: an over-use cuts the rate itself by `beta`, and teaches no capacity.
    @Test func anOveruseWhileApplicationLimitedCutsTheRateItself() {
        var limited = AIMDRateControl(start: 300_000, minimum: 30_000, maximum: 5_000_000)
        limited.update(.overusing, acknowledged: 40_000, applicationLimited: true, now: Self.t0)
        #expect(limited.rate == 0.85 * 300_000 && limited.state == .hold)
        #expect(!limited.linkCapacity.hasEstimate)
        var filling = AIMDRateControl(start: 300_000, minimum: 30_000, maximum: 5_000_000)
        filling.update(.overusing, acknowledged: 40_000, now: Self.t0)
        #expect(filling.rate == 30_000, "0.85 × 40 - 5 kbit/s, at the floor")
    }

    @Test func startUpDoublesPerSecond() {
        var control = AIMDRateControl(start: 300_000, minimum: 30_000, maximum: 5_000_000)
        _ = Self.feed(&control, .normal, acknowledged: 2_000_000, from: Self.t0, seconds: 2)
        // The first update only leaves Hold; then 19 steps of 100 ms.
        let expected = 300_000 * 2 * 2.0.power(0.9)
        #expect(abs(control.rate - expected) / expected < 0.02)
    }

    @Test func farFromConvergenceItGrowsEightPercentPerSecondNearItAdditively() {
        var control = AIMDRateControl(start: 600_000, minimum: 30_000, maximum: 5_000_000)
        control.update(.overusing, acknowledged: 500_000, now: Self.t0)  // capacity seen at 500 kbit/s
        let afterCut = control.rate
        var now = Self.t0 + .milliseconds(100)
        control.update(.normal, acknowledged: 480_000, now: now)  // Hold → Increase
        now = Self.feed(&control, .normal, acknowledged: 480_000, from: now, seconds: 1)
        let additive = control.rate - afterCut
        #expect(additive > 20_000 && additive < 60_000, "near the capacity: about one packet per response time")
        // The path now carries far more than the capacity seen: the estimate is dropped.
        let before = control.rate
        _ = Self.feed(&control, .normal, acknowledged: 1_500_000, from: now, seconds: 1)
        #expect(!control.linkCapacity.hasEstimate)
        #expect(abs(control.rate / before - 1.08) < 0.01)
    }

    @Test func neverGrowsFarBeyondWhatThePathDelivers() {
        var control = AIMDRateControl(start: 300_000, minimum: 30_000, maximum: 5_000_000)
        _ = Self.feed(&control, .normal, acknowledged: 100_000, from: Self.t0, seconds: 10)
        #expect(control.rate == 300_000, "above 1.5 × 100 + 10 kbit/s already: no increase")
        var app = AIMDRateControl(start: 100_000, minimum: 30_000, maximum: 5_000_000)
        _ = Self.feed(&app, .normal, acknowledged: 100_000, from: Self.t0, seconds: 10)
        #expect(app.rate == 160_000)
    }

    @Test func reducesAgainOnlyAfterARoundTripUnlessThePathCollapsed() {
        var control = AIMDRateControl(start: 1_000_000, minimum: 30_000, maximum: 5_000_000)
        control.roundTrip = .milliseconds(150)
        control.update(.overusing, acknowledged: 900_000, now: Self.t0)
        #expect(!control.mayReduceFurther(now: Self.t0 + .milliseconds(100), acknowledged: 800_000))
        #expect(control.mayReduceFurther(now: Self.t0 + .milliseconds(150), acknowledged: 800_000))
        #expect(control.mayReduceFurther(now: Self.t0 + .milliseconds(10), acknowledged: 300_000))
    }

    @Test func staysWithinItsBounds() {
        var control = AIMDRateControl(start: 10, minimum: 30_000, maximum: 1_000_000)
        #expect(control.rate == 30_000)
        control.update(.overusing, acknowledged: 0, now: Self.t0)
        #expect(control.rate == 30_000)
        _ = Self.feed(&control, .normal, acknowledged: 1e12, from: Self.t0, seconds: 60)
        #expect(control.rate == 1_000_000)
        control.setRate(.nan, now: Self.t0)
        control.setRate(-1, now: Self.t0)
        #expect(control.rate == 30_000)
    }
}

@Suite struct PowerTests {
    @Test func matchesKnownValues() {
        #expect(abs(2.0.power(0.5) - 1.414_213_562_373_095) < 1e-12)
        #expect(abs(1.08.power(0.1) - 1.007_725_795_242_675) < 1e-12)
        #expect(abs(0.5.power(1) - 0.5) < 1e-12)
        #expect(3.0.power(0) == 1)
        #expect(Double.nan.power(0.5) == 1 && 2.0.power(.infinity) == 1)
    }
}
