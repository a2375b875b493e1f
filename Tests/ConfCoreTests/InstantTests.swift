import ConfCore
import Testing

@Suite struct InstantTests {
    @Test func arithmeticAndOrdering() {
        let t = Instant(nanoseconds: 5_000_000_000)
        #expect((t + .milliseconds(1500)).nanoseconds == 6_500_000_000)
        #expect((t - .seconds(2)).nanoseconds == 3_000_000_000)
        #expect((t - .seconds(10)) == .zero)  // clamped, never wraps
        #expect((t + .seconds(1)).since(t) == .seconds(1))
        #expect(t.since(t + .seconds(1)) == .zero)
        #expect(t < t + .nanoseconds(1))
    }

    @Test func manualClockMovesOnlyWhenTold() {
        let clock = ManualClock()
        #expect(clock.now() == .zero)
        clock.advance(by: .milliseconds(20))
        #expect(clock.now() == Instant(nanoseconds: 20_000_000))
    }
}
