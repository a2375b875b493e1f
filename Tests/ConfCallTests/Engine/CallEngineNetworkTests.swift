import ConfCall
import ConfCore
import Testing

/// A participant's network changes mid-call: every link is set up again at once on the new
/// addresses, whichever side offered it, and the call goes on in the same room.
struct CallEngineNetworkTests {
    /// ann in the room first, bob joins: bob offers the link (the newcomer offers).
    @Test(arguments: [false, true])
    func aChangedNetworkSetsTheLinkUpAgainAtOnce(onTheOfferer: Bool) throws {
        let (call, ann, bob) = try SimulatedCall.connectedPair(seed: onTheOfferer ? 41 : 42, media: .audio)
        let moved = onTheOfferer ? bob : ann, other = onTheOfferer ? ann : bob
        let changedAt = call.now
        moved.pending.append(.networkChanged)
        #expect(call.run(for: .seconds(3)) { ann.connectedEvents.count == 2 && bob.connectedEvents.count == 2 },
                "ann: \(ann.disconnections), bob: \(bob.disconnections)")
        #expect(call.now.since(changedAt) < .milliseconds(500), "not the 2 s restart delay, nor silence noticed after 2.5 s")
        #expect(moved.disconnections.map(\.code) == [.networkChanged])
        #expect(other.disconnections.map(\.code) == [.networkChanged], "the other side learns why too")
        // Audio flows again on the new link.
        let heard = other.receivedAudioFrames[moved.id, default: 0]
        call.run(for: .seconds(1))
        #expect(other.receivedAudioFrames[moved.id, default: 0] > heard + 30)
    }

    @Test func changesInARowNeverUseUpTheRestartsAFailingLinkIsAllowed() throws {
        let (call, ann, bob) = try SimulatedCall.connectedPair(seed: 43, media: .audio)
        for round in 1...6 {
            ann.pending.append(.networkChanged)
            #expect(call.run(for: .seconds(3)) { bob.connectedEvents.count == round + 1 }, "round \(round): \(bob.disconnections)")
        }
        #expect(!ann.events.contains { if case .peerDisconnected(let d) = $0.event { d.reason.code != .networkChanged } else { false } })
    }
}
