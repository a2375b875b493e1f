@testable import ConfCall
import ConfCore
import Testing

/// Which of the two encodings a link gets, from its budget against what the full encoding's
/// layers for half its frame rate take (here 240 kbit/s).
@Suite struct LinkEncodingChoiceTests {
    let start = Instant.zero + .seconds(10)

    @Test func aBudgetShortOfHalfTheFullFrameRateGoesSmallAfterHalfASecond() {
        var choice = LinkEncodingChoice()
        #expect(choice.update(budgetKbps: 230, fullNeedsKbps: 240, now: start) == nil)
        #expect(choice.update(budgetKbps: 230, fullNeedsKbps: 240, now: start + .milliseconds(499)) == nil)
        #expect(choice.update(budgetKbps: 230, fullNeedsKbps: 240, now: start + .milliseconds(500)) == .small)
        #expect(choice.encoding == .small)
    }

    @Test func aDipShorterThanTheWaitKeepsTheFullEncoding() {
        var choice = LinkEncodingChoice()
        #expect(choice.update(budgetKbps: 100, fullNeedsKbps: 240, now: start) == nil)
        #expect(choice.update(budgetKbps: 300, fullNeedsKbps: 240, now: start + .milliseconds(300)) == nil)
        #expect(choice.update(budgetKbps: 100, fullNeedsKbps: 240, now: start + .milliseconds(600)) == nil)
        #expect(choice.encoding == .full, "the dip restarted the wait")
    }

    @Test func backToFullOnlyWithAMarginHeldForFiveSeconds() {
        var choice = LinkEncodingChoice()
        _ = choice.update(budgetKbps: 100, fullNeedsKbps: 240, now: start)
        _ = choice.update(budgetKbps: 100, fullNeedsKbps: 240, now: start + .seconds(1))
        #expect(choice.encoding == .small)
        // 280 carries the half-rate layers (240) but not with the 1.25 margin (300): stays small.
        #expect(choice.update(budgetKbps: 280, fullNeedsKbps: 240, now: start + .seconds(2)) == nil)
        #expect(choice.update(budgetKbps: 280, fullNeedsKbps: 240, now: start + .seconds(9)) == nil)
        #expect(choice.update(budgetKbps: 300, fullNeedsKbps: 240, now: start + .seconds(10)) == nil)
        #expect(choice.update(budgetKbps: 300, fullNeedsKbps: 240, now: start + .milliseconds(14_999)) == nil)
        #expect(choice.update(budgetKbps: 300, fullNeedsKbps: 240, now: start + .seconds(15)) == .full)
    }

    @Test func aReturnToFullThatDoesNotLastDoublesTheNextWait() {
        var choice = LinkEncodingChoice()
        var now = start
        func step(_ budget: Int, for duration: Duration) -> [VideoEncoding] {
            var changes: [VideoEncoding] = []
            let end = now + duration
            while now < end {
                if let change = choice.update(budgetKbps: budget, fullNeedsKbps: 240, now: now) { changes.append(change) }
                now = now + .milliseconds(200)
            }
            return changes
        }
        #expect(step(100, for: .seconds(1)) == [.small])
        #expect(step(400, for: .milliseconds(5_200)) == [.full], "the first return waits 5 s")
        #expect(step(100, for: .seconds(1)) == [.small], "back within the trial: it failed")
        #expect(choice.waitForFull == .seconds(10))
        #expect(step(400, for: .milliseconds(9_800)).isEmpty, "now 10 s")
        #expect(step(400, for: .milliseconds(400)) == [.full])
        // Full for the whole trial: the wait is back to 5 s.
        #expect(step(400, for: .seconds(11)).isEmpty)
        #expect(step(100, for: .seconds(1)) == [.small])
        #expect(choice.waitForFull == .seconds(5))
    }
}
