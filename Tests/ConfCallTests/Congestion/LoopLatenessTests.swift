import ConfCore
import Testing
@testable import ConfCall

@Suite struct LoopLatenessTests {
    static func at(_ seconds: Double) -> Instant { .zero + .milliseconds(exactly: seconds * 1000) }

    @Test func aTimerLateBeyondItsSlotHoldsTheLoopUpForTenSeconds() {
        var lateness = LoopLateness()
        #expect(!lateness.isHeldUp(now: Self.at(1)))
        lateness.record(.milliseconds(12), now: Self.at(1))
        #expect(!lateness.isHeldUp(now: Self.at(1)), "within a slot or two: a prompt loop")
        lateness.record(.milliseconds(25), now: Self.at(2))
        #expect(lateness.isHeldUp(now: Self.at(2)) && lateness.isHeldUp(now: Self.at(11.9)))
        #expect(!lateness.isHeldUp(now: Self.at(12)), "forgotten after ten seconds")
        lateness.record(.milliseconds(300), now: Self.at(20))
        lateness.record(.milliseconds(10), now: Self.at(25))
        #expect(lateness.isHeldUp(now: Self.at(29)), "a small lateness does not clear a hold-up")
    }
}
