import ConfCall
import ConfCore
import ConfWire
import Testing

/// Getting into the room, or learning why not; leaving it.
@Suite struct RendezvousSessionJoinTests {
    typealias H = RendezvousSessionHarness

    @Test func joinsWithThePinAndReportsTheRoom() {
        let h = H()
        h.feed(.start)
        #expect(h.take() == [.connect])
        h.feed(.transportOpened)
        #expect(h.take() == [.send(.join(room: H.room, pin: H.pin, name: "ann"))])
        let bob = H.participant(1, "bob")
        let joined = H.joined(peers: [bob])
        h.server(.joined(joined))
        #expect(h.take() == [
            .event(.joined(.init(you: joined.you, name: "ann", role: .publisher, room: H.room, roomName: "standup",
                                 resolution: .p480, peers: [bob]))),
            .joined(joined),
        ])
        #expect(h.session.isInRoom)
        #expect(h.session.nextDeadline() == h.now + RendezvousSession.pingInterval)

        h.advance(by: .seconds(15))
        #expect(h.take() == [.send(.ping)])
        h.server(.pong)
        h.server(.peerJoined(H.participant(2, "cy")))
        h.server(.signal(from: bob.id, payload: .object(["sdp": "x"])))
        #expect(h.take() == [.event(.peerJoined(H.participant(2, "cy"))), .peerJoined(H.participant(2, "cy")),
                             .signal(from: bob.id, .object(["sdp": "x"]))])
    }

    @Test(arguments: [ErrorCode.wrongPin, .roomFull, .noSuchRoom, .rateLimited, .notAdmitted])
    func aRefusedJoinEndsTheSessionWithTheServersCode(code: ErrorCode) {
        let h = H()
        h.feed(.start)
        h.feed(.transportOpened)
        _ = h.take()
        h.server(.error(code: code, message: "no"))
        #expect(h.take() == [.close(code: 1000, reason: ""), .ended(.failed(.joinRefused(code, message: "no")))])
        #expect(h.session.nextDeadline() == nil)
        h.feed(.transportClosed(code: 1000, reason: code.rawValue))
        #expect(h.take().isEmpty, "ended once")
    }

    @Test func aLockedRoomMakesTheJoinKnockUntilAPublisherAdmitsIt() {
        let h = H()
        h.feed(.start)
        h.feed(.transportOpened)
        _ = h.take()
        h.server(.knocking(message: "the room is locked: waiting for someone in the call to let you in"))
        #expect(h.take() == [.event(.knocking(room: H.room, message: "the room is locked: waiting for someone in the call to let you in"))])
        #expect(!h.session.isInRoom)
        h.advance(by: .seconds(20))  // nothing happens while knocking
        #expect(h.take().isEmpty)
        h.server(.joined(H.joined(peers: [H.participant(1, "bob")])))
        #expect(h.session.isInRoom)
        #expect(h.events.contains { $0.kind == .joined })
    }

    @Test func aKnockThatIsNotAdmittedEndsWithNotAdmitted() {
        let h = H()
        h.feed(.start)
        h.feed(.transportOpened)
        h.server(.knocking(message: "locked"))
        h.server(.error(code: .notAdmitted, message: "nobody let you in"))
        #expect(h.ending == .failed(.joinRefused(.notAdmitted, message: "nobody let you in")))
    }

    @Test func aPublisherAnswersKnocksOnlyInTheRoom() {
        let h = H()
        let knock = KnockID("k1")!
        h.feed(.start)
        h.feed(.answerKnock(knock, admit: true))
        #expect(!h.take().contains(.send(.admit(knock))))
        h.feed(.transportOpened)
        h.server(.joined(H.joined(peers: [])))
        _ = h.take()
        h.server(.knock(.init(id: knock, name: "eve", role: .publisher)))
        h.feed(.answerKnock(knock, admit: false))
        h.server(.knockEnded(knock, outcome: .denied))
        #expect(h.take() == [.event(.knock(.init(id: knock, name: "eve", role: .publisher))), .send(.deny(knock)),
                             .event(.knockEnded(knock, outcome: .denied))])
    }

    @Test func theConnectionFailingAtTheStartEndsWithTheTransportsReason() {
        let h = H()
        h.feed(.start)
        h.feed(.transportFailed(.unreachable("Connection refused")))
        #expect(h.take() == [.connect, .ended(.failed(.cannotConnect(.unreachable("Connection refused"))))])
    }

    @Test func theConnectionEndingBeforeTheJoinIsAnsweredEndsTheSession() {
        let closedByServer = H()
        closedByServer.feed(.start)
        closedByServer.feed(.transportOpened)
        closedByServer.feed(.transportClosed(code: 1008, reason: "flood"))
        #expect(closedByServer.ending == .failed(.closedBeforeJoining(reason: "flood")))

        let shutDown = H()
        shutDown.feed(.start)
        shutDown.feed(.transportOpened)
        shutDown.server(.roomClosed(reason: "restart"))
        shutDown.feed(.transportClosed(code: 1001, reason: "restart"))
        #expect(shutDown.ending == .failed(.shutDown))

        let hostLeft = H()
        hostLeft.feed(.start)
        hostLeft.feed(.transportOpened)
        hostLeft.server(.roomClosed(reason: "host-left"))
        hostLeft.feed(.transportClosed(code: 1001, reason: "host-left"))
        #expect(hostLeft.ending == .left(.hostLeft))
    }

    @Test func hostileMessagesAreNotedAndIgnored() {
        let h = H()
        h.joinRoom(with: [])
        h.feed(.received("{\"type\":\"joined\",\"you\":\"\u{1b}[2J\"}"))
        h.feed(.received("not json"))
        let outputs = h.take()
        #expect(outputs.count == 2)
        #expect(outputs.allSatisfy { if case .note(let text) = $0 { text.hasPrefix("conf: ignored a message from the rendezvous: ") } else { false } })
        #expect(h.session.isInRoom)
    }

    @Test func leavingTellsTheRoomAndEndsWhenTheConnectionCloses() {
        let h = H()
        h.joinRoom(with: [H.participant(1, "bob")])
        h.feed(.leave(.command))
        #expect(h.take() == [.leaving, .send(.leave), .close(code: 1000, reason: "left")])
        h.feed(.transportClosed(code: 1000, reason: "left"))
        #expect(h.take() == [.ended(.left(.command))])
    }

    @Test func leavingDoesNotWaitMoreThanTwoSecondsForTheCloseHandshake() {
        let h = H()
        h.joinRoom(with: [])
        let left = h.now
        h.feed(.leave(.signal))
        let ended = h.run(for: .seconds(10)) { $0 == .ended(.left(.signal)) }
        #expect(ended == left + .seconds(2))
    }

    @Test func theDurationEndsTheCallCleanly() {
        let h = H(duration: .seconds(30))
        h.joinRoom(with: [])
        let joined = h.now
        let leaving = h.run(for: .seconds(60)) { $0 == .leaving }
        #expect(leaving == joined + .seconds(30))
        #expect(h.take().suffix(3) == [.leaving, .send(.leave), .close(code: 1000, reason: "left")])
        h.feed(.transportClosed(code: 1000, reason: "left"))
        #expect(h.ending == .left(.duration))
    }

    /// The call failed on its own (no peer reached, a device): the room is told, the owner reports why.
    @Test func abandoningLeavesAtOnce() {
        let h = H()
        h.joinRoom(with: [])
        h.feed(.abandon)
        #expect(h.take() == [.send(.leave), .close(code: 1000, reason: ""), .ended(.abandoned)])
        h.feed(.signal(to: ParticipantID("p1"), .null))
        #expect(h.take().isEmpty)
    }
}
