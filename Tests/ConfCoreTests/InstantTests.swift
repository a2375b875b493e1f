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

    /// The 128-bit path agrees with the stdlib's components, toward zero on both sides of it.
    @Test func durationsInNanosecondsAgreeWithTheirComponents() {
        let durations: [Duration] = [.zero, .nanoseconds(1), .nanoseconds(-1), .milliseconds(1500), .milliseconds(-1500),
                                     .seconds(9), .seconds(10), .seconds(-10), .seconds(86_400 * 365 * 200),
                                     .seconds(1) / 3, .zero - .seconds(1) / 3, Duration(attoseconds: 999_999_999), Duration(attoseconds: -999_999_999)]
        for duration in durations {
            let (seconds, attoseconds) = duration.components
            #expect(duration.nanosecondsClamped == seconds * 1_000_000_000 + attoseconds / 1_000_000_000, "\(duration)")
        }
        #expect(Duration.seconds(Int64.max).nanosecondsClamped == .max)
        #expect((Duration.zero - .seconds(Int64.max)).nanosecondsClamped == .min)
        #expect(Instant(nanoseconds: 5) - .seconds(Int64.max) == .zero)  // Int64.min nanoseconds: clamped, no trap
        #expect(Instant(nanoseconds: .max).since(.zero) == .nanoseconds(Int64.max) * 2 + .nanoseconds(1))
    }

    @Test func manualClockMovesOnlyWhenTold() {
        let clock = ManualClock()
        #expect(clock.now() == .zero)
        clock.advance(by: .milliseconds(20))
        #expect(clock.now() == Instant(nanoseconds: 20_000_000))
    }
}
