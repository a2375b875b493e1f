import ConfCall
import ConfCore
import ConfWire
import Testing

/// Losing the rendezvous in the room: reconnecting, taking the seat back, going on without it.
@Suite struct RendezvousSessionAwayTests {
    typealias H = RendezvousSessionHarness
    static let ann = H.participant(1, "ann"), bob = H.participant(2, "bob"), cy = H.participant(3, "cy"), dee = H.participant(4, "dee")

    /// The delays between the attempts to reconnect after a loss (each attempt fails).
    private func reconnectDelays(seed: UInt64, attempts: Int) -> [Duration] {
        let h = H(seed: seed)
        h.connected = [Self.bob.id]
        h.joinRoom(with: [Self.bob])
        h.feed(.transportClosed(code: 1006, reason: ""))
        var delays: [Duration] = []
        var last = h.now
        for _ in 0..<attempts {
            guard let at = h.run(for: .seconds(60), until: { $0 == .connect }) else { break }
            delays.append(at.since(last))
            last = at
            h.feed(.transportFailed(.unreachable("Connection refused")))
        }
        return delays
    }

    @Test func aLostConnectionIsReportedAndRetriedWithGrowingJitteredDelays() {
        let h = H()
        h.connected = [Self.bob.id]
        h.joinRoom(with: [Self.bob])
        h.feed(.transportClosed(code: 1006, reason: ""))
        #expect(h.take() == [.event(.rendezvousLost(rendezvous: "ws://192.0.2.5:7373", reason: .closed(code: 1006, reason: "")))])
        #expect(h.session.phase == .away)

        let delays = reconnectDelays(seed: 1, attempts: 7)
        #expect(delays.count == 7)
        // Equal jitter: each delay in the upper half of 0.5 s, 1 s, 2 s, ... capped at 15 s.
        let ceilings: [Duration] = [.milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(15), .seconds(15)]
        for (delay, ceiling) in zip(delays, ceilings) {
            #expect(delay >= ceiling / 2 && delay <= ceiling, "\(delay) not in [\(ceiling / 2), \(ceiling)]")
        }
        #expect(delays[4] > delays[0] && delays[5] > delays[1])
        #expect(reconnectDelays(seed: 2, attempts: 3) != Array(delays.prefix(3)), "the jitter comes from the generator")
        #expect(reconnectDelays(seed: 1, attempts: 3) == Array(delays.prefix(3)), "and only from it")
    }

    @Test func aResumedSeatIsReportedAndTheRosterReconciled() {
        let h = H()
        h.joinRoom(with: [Self.ann, Self.bob, Self.cy])
        h.connected = [Self.bob.id, Self.cy.id]
        h.feed(.transportClosed(code: 1001, reason: "restart"))
        h.run(for: .seconds(5)) { $0 == .connect }
        h.feed(.transportOpened)
        #expect(h.take().last == .send(.resume(token: H.token)))
        #expect(h.session.phase == .resuming)

        // Meanwhile ann left (her link is gone too), dee came; bob's seat is not back yet on the
        // restarted rendezvous but his link still carries the call; cy is there.
        h.server(.joined(H.joined(peers: [Self.cy, Self.dee], token: "token-2")))
        #expect(h.take() == [
            .event(.rendezvousBack(rendezvous: "ws://192.0.2.5:7373")),
            .event(.peerLeft(Self.ann)), .peerLeft(Self.ann.id),
            .event(.peerJoined(Self.dee)), .peerJoined(Self.dee),
        ])
        #expect(h.session.isInRoom)
        // bob's peer-joined from the restarted rendezvous is not news; his real departure is.
        h.server(.peerJoined(Self.bob))
        #expect(h.take().isEmpty)
        h.server(.peerLeft(Self.bob.id))
        #expect(h.take() == [.event(.peerLeft(Self.bob)), .peerLeft(Self.bob.id)])

        // The next loss resumes with the new token, and the backoff starts again from the bottom.
        let lostAt = h.now
        h.feed(.transportClosed(code: 1006, reason: ""))
        let retried = h.run(for: .seconds(5)) { $0 == .connect }
        #expect(retried.map { $0.since(lostAt) <= .milliseconds(500) } == true)
        h.feed(.transportOpened)
        #expect(h.take().last == .send(.resume(token: "token-2")))
    }

    @Test func aRefusedResumeGoesOnDetachedWhileALinkIsUp() {
        let h = H()
        h.connected = [Self.bob.id]
        h.joinRoom(with: [Self.bob])
        h.feed(.transportClosed(code: 1006, reason: ""))
        h.run(for: .seconds(5)) { $0 == .connect }
        h.feed(.transportOpened)
        _ = h.take()
        h.server(.error(code: .resumeRefused, message: "that seat was given up"))
        let closing = CallEvent.RendezvousClosing.seatGone(.resumeRefused, message: "that seat was given up")
        #expect(h.take() == [.close(code: 1000, reason: ""), .event(.rendezvousClosed(rendezvous: "ws://192.0.2.5:7373", reason: closing))])
        #expect(h.session.phase == .detached)
        h.feed(.transportClosed(code: 1000, reason: ""))
        h.advance(by: .seconds(60))
        #expect(h.take().isEmpty, "the call goes on with bob, no reconnecting")

        h.connected = []
        let gone = h.now
        let ended = h.run(for: .seconds(2)) { if case .ended = $0 { true } else { false } }
        #expect(ended.map { $0.since(gone) <= .milliseconds(500) } == true)
        #expect(h.ending == .left(.nobodyLeft))
    }

    @Test func aRefusedResumeWithNobodyConnectedEndsTheSession() {
        let h = H()
        h.joinRoom(with: [Self.bob])
        h.feed(.transportClosed(code: 1006, reason: ""))
        h.run(for: .seconds(5)) { $0 == .connect }
        h.feed(.transportOpened)
        h.server(.error(code: .resumeRefused, message: "expired"))
        #expect(h.ending == .failed(.closedAlone(.seatGone(.resumeRefused, message: "expired"))))
        #expect(!h.events.contains { $0.kind == .rendezvousClosed })
    }

    @Test func noResumeTokenMeansDetachedOrEnded() {
        let withLink = H()
        withLink.connected = [Self.bob.id]
        withLink.joinRoom(with: [Self.bob], token: nil)
        withLink.feed(.transportClosed(code: 1006, reason: ""))
        #expect(withLink.take() == [
            .event(.rendezvousLost(rendezvous: "ws://192.0.2.5:7373", reason: .closed(code: 1006, reason: ""))),
            .event(.rendezvousClosed(rendezvous: "ws://192.0.2.5:7373", reason: .noResume)),
        ])

        let alone = H()
        alone.joinRoom(with: [Self.bob], token: nil)
        alone.feed(.transportClosed(code: 1006, reason: "gone"))
        #expect(alone.ending == .failed(.lostAlone(.closed(code: 1006, reason: "gone"))))
    }

    @Test func aSilentServerIsDetectedAtTheFirstPingPastTheLimit() {
        let h = H()
        h.connected = [Self.bob.id]
        h.joinRoom(with: [Self.bob])
        let joined = h.now
        let lost = h.run(for: .seconds(60)) { if case .event(.rendezvousLost) = $0 { true } else { false } }
        // Pings at 15 s and 30 s go unanswered; at 45 s nothing has been heard for 40 s or more.
        #expect(lost == joined + .seconds(45))
        #expect(h.take().filter { $0 == .send(.ping) }.count == 2)
        #expect(h.events.last == .rendezvousLost(rendezvous: "ws://192.0.2.5:7373", reason: .stoppedAnswering))
        #expect(h.session.phase == .away)
    }

    @Test func answeredPingsKeepTheSessionInTheRoom() {
        let h = H()
        h.joinRoom(with: [])
        for _ in 0..<20 {
            h.advance(by: .seconds(15))
            h.server(.pong)
        }
        #expect(h.session.isInRoom)
        #expect(h.take().filter { $0 == .send(.ping) }.count == 20)
    }

    @Test func whenTheHostLeavesTheCallGoesOnUntilNoLinkIsLeft() {
        let h = H()
        h.connected = [Self.bob.id]
        h.joinRoom(with: [Self.ann, Self.bob])
        h.server(.peerLeft(Self.ann.id))
        h.server(.roomClosed(reason: "host-left"))
        h.feed(.transportClosed(code: 1001, reason: "host-left"))
        #expect(h.take() == [.event(.peerLeft(Self.ann)), .peerLeft(Self.ann.id),
                             .event(.rendezvousClosed(rendezvous: "ws://192.0.2.5:7373", reason: .hostLeft))])
        h.advance(by: .seconds(10))
        #expect(h.take().isEmpty)
        h.connected = []
        h.advance(by: .milliseconds(500))
        // bob was connected when the host went: the call ended when bob did, not with the host.
        #expect(h.ending == .left(.nobodyLeft))

        let alone = H()
        alone.joinRoom(with: [Self.ann])
        alone.server(.roomClosed(reason: "host-left"))
        alone.feed(.transportClosed(code: 1001, reason: "host-left"))
        #expect(alone.take() == [.ended(.left(.hostLeft))])
    }

    @Test func leavingWhileAwayEndsAtOnce() {
        let h = H()
        h.connected = [Self.bob.id]
        h.joinRoom(with: [Self.bob])
        h.feed(.transportClosed(code: 1006, reason: ""))
        _ = h.take()
        h.feed(.leave(.command))
        #expect(h.take() == [.ended(.left(.command))])
        #expect(h.session.nextDeadline() == nil)
        h.feed(.transportOpened)  // the attempt in flight opens after all: closed again
        #expect(h.take() == [.close(code: 1000, reason: "")])
    }

    @Test func awayWithNobodyConnectedEndsAfterTheLimit() {
        let h = H()
        h.connected = [Self.bob.id]
        h.joinRoom(with: [Self.bob])
        h.feed(.transportClosed(code: 1006, reason: ""))
        // The rendezvous stays unreachable; bob's link carries the call for a minute, then ends.
        var failing = true
        func refuseReconnects(for duration: Duration) {
            let end = h.now + duration
            while failing, let at = h.run(for: end.since(h.now), until: { $0 == .connect }), at <= end {
                h.feed(.transportFailed(.unreachable("Connection refused")))
                _ = h.take()
                if h.ending != nil { failing = false }
            }
            if end > h.now { h.advance(by: end.since(h.now)) }
        }
        refuseReconnects(for: .seconds(60))
        #expect(h.ending == nil, "a peer is connected: the call goes on")
        h.connected = []
        let alone = h.now
        refuseReconnects(for: .seconds(40))
        let endedAt = h.outputs.first { if case .ended = $0.output { true } else { false } }?.at
        #expect(h.ending == .failed(.awayAlone(limit: .seconds(30))))
        // Seen at the 500 ms checks: from the first check alone, 30 s.
        #expect(endedAt.map { $0.since(alone) >= .seconds(30) && $0.since(alone) <= .seconds(31) } == true)
    }

    @Test func signalsWaitForTheRoom() {
        let h = H()
        h.connected = [Self.bob.id]
        h.joinRoom(with: [Self.bob])
        h.feed(.transportClosed(code: 1006, reason: ""))
        _ = h.take()
        h.feed(.signal(to: Self.bob.id, .object(["candidate": "x"])))
        #expect(!h.take().contains { if case .send = $0 { true } else { false } }, "dropped: nowhere to send it")
    }
}
