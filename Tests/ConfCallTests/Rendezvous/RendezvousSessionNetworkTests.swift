import ConfCall
import ConfCore
import ConfWire
import Testing

/// This machine's addresses change mid-call: the rendezvous connection is pinged, and the links
/// are set up again (`.signalPathConfirmed`) only once signals can reach the room.
@Suite struct RendezvousSessionNetworkTests {
    typealias H = RendezvousSessionHarness
    static let bob = H.participant(2, "bob")

    @Test func aConnectionThatAnswersIsKept() {
        let h = H()
        h.connected = [Self.bob.id]
        h.joinRoom(with: [Self.bob])
        h.feed(.networkChanged)
        #expect(h.take() == [.send(.ping)], "nothing is confirmed before the rendezvous answers")
        h.advance(by: .milliseconds(30))
        h.server(.pong)
        #expect(h.take() == [.signalPathConfirmed])
        h.advance(by: .seconds(5))
        #expect(!h.take().contains(.connect), "no new connection")
        #expect(h.session.isInRoom)
    }

    @Test func aSilentConnectionIsReplacedAtOnceAndTheSeatTakenBack() {
        let h = H()
        h.connected = [Self.bob.id]
        h.joinRoom(with: [Self.bob])
        let changedAt = h.now
        h.feed(.networkChanged)
        #expect(h.take() == [.send(.ping)])
        let reconnectedAt = h.run(for: .seconds(10)) { $0 == .connect }
        #expect(reconnectedAt == changedAt + RendezvousSession.networkProbeWait, "a new connection when the probe is given up, no backoff")
        #expect(h.take() == [.close(code: 1001, reason: "network changed"),
                             .event(.rendezvousLost(rendezvous: "ws://192.0.2.5:7373", reason: .networkChanged)), .connect])
        h.feed(.transportOpened)
        #expect(h.take() == [.send(.resume(token: H.token))])
        h.server(.joined(H.joined(peers: [Self.bob], token: "token-2")))
        #expect(h.take() == [.event(.rendezvousBack(rendezvous: "ws://192.0.2.5:7373")), .signalPathConfirmed])
    }

    @Test func awayItReconnectsNowRatherThanAtTheBackoffsNextTry() {
        let h = H()
        h.connected = [Self.bob.id]
        h.joinRoom(with: [Self.bob])
        h.feed(.transportClosed(code: 1006, reason: ""))
        for _ in 0..<4 {  // the backoff grows to seconds
            h.run(for: .seconds(30)) { $0 == .connect }
            h.feed(.transportFailed(.unreachable("Network is unreachable")))
        }
        _ = h.take()
        let changedAt = h.now
        h.feed(.networkChanged)
        #expect(h.run(for: .seconds(30)) { $0 == .connect } == changedAt)
        h.feed(.transportOpened)
        h.server(.joined(H.joined(peers: [Self.bob])))
        #expect(h.take().last == .signalPathConfirmed)
    }

    @Test func withoutARendezvousTheLinksAreSetUpAgainAtOnce() {
        let h = H()
        h.connected = [Self.bob.id]
        h.joinRoom(with: [Self.bob], token: nil)
        h.feed(.transportClosed(code: 1006, reason: ""))  // no token: detached
        #expect(h.session.phase == .detached)
        _ = h.take()
        h.feed(.networkChanged)
        #expect(h.take() == [.signalPathConfirmed])
    }

    /// Given up with no seat to take back (no resume token): the call goes on detached, and the
    /// links are set up again all the same, as when the change comes while detached.
    @Test func aProbeGivenUpWithoutAResumeTokenStillLetsTheLinksGoOn() {
        let h = H()
        h.connected = [Self.bob.id]
        h.joinRoom(with: [Self.bob], token: nil)
        h.feed(.networkChanged)
        h.advance(by: RendezvousSession.networkProbeWait)
        #expect(h.session.phase == .detached)
        #expect(h.take().contains(.signalPathConfirmed))
    }
}
