import ConfCore
import Testing
@testable import ConfCall

/// `PeerSlot`: what outlives a peer's link, counted as the engine's restarts use it.
@Suite struct PeerSlotTests {
    static let t0 = Instant(nanoseconds: 1_000_000_000)

    @Test func setUpsThatNeverConnectAreOneRunFromItsFirstTry() {
        var slot = PeerSlot()
        slot.linkOpens(retrying: false, now: Self.t0)
        #expect(slot.setupAttempt == 1 && slot.triedSince == Self.t0)
        slot.linkOpens(retrying: true, now: Self.t0 + .seconds(5))
        slot.linkOpens(retrying: true, now: Self.t0 + .seconds(10))
        #expect(slot.setupAttempt == 3 && slot.triedSince == Self.t0)
        // The link before connected: a new run.
        slot.linkOpens(retrying: false, now: Self.t0 + .seconds(60))
        #expect(slot.setupAttempt == 1 && slot.triedSince == Self.t0 + .seconds(60))
    }

    @Test func restartsWaitTwiceAsLongEachTimeUpToTheLimitAndAConnectionForgivesThem() {
        var slot = PeerSlot()
        var delays: [Duration] = []
        var now = Self.t0
        while slot.scheduleRestart(after: .seconds(2), limit: 4, now: now) {
            let due = try! #require(slot.restartDue)
            delays.append(due.since(now))
            now = due
        }
        #expect(delays == [.seconds(2), .seconds(4), .seconds(8), .seconds(16)])
        #expect(slot.restartsInARow == 4)
        slot.stalled()
        slot.connected()
        #expect(slot.restartsInARow == 0 && slot.stallRestarts == 0)
        #expect(slot.scheduleRestart(after: .seconds(2), limit: 4, now: now) && slot.restartDue == now + .seconds(2))
        slot.forgetRestarts()
        #expect(slot.restartDue == nil && slot.restartsInARow == 0)
    }

    /// A peer that joins again is not held to what failed before; its set-up run goes on.
    @Test func joiningAgainForgetsTheRestartsButNotTheSetUp() {
        var slot = PeerSlot()
        slot.linkOpens(retrying: false, now: Self.t0)
        slot.linkOpens(retrying: true, now: Self.t0 + .seconds(4))
        _ = slot.scheduleRestart(after: .seconds(2), limit: 4, now: Self.t0 + .seconds(5))
        slot.stalled()
        slot.joined()
        #expect(slot.restartsInARow == 0 && slot.restartDue == nil && slot.stallRestarts == 0)
        #expect(slot.setupAttempt == 2 && slot.triedSince == Self.t0)
    }
}
