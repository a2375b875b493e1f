import ConfCore
import ConfRendezvous
import ConfWire
import Testing

@Suite struct RendezvousCoreTests {
    @Test func createsRoomsWithDistinctReadableIdsAndPins() {
        let h = RendezvousHarness()
        var ids = Set<RoomID>()
        for _ in 0..<25 {
            let room = h.createRoom()
            #expect(room.pin != room.listenPin)
            #expect(room.room.rawValue.count == 9)
            ids.insert(room.room)
        }
        #expect(ids.count == 25)
    }

    @Test func joinGivesRoleRosterAndTellsOthers() {
        let h = RendezvousHarness()
        let room = h.createRoom("standup", .p720)
        let (a, ann) = h.join(room, name: "ann")
        #expect(ann?.you == ParticipantID("p1") && ann?.role == .publisher && ann?.peers.isEmpty == true)
        #expect(ann?.resolution == .p720 && ann?.roomName == "standup")
        let (_, bob) = h.join(room, pin: room.listenPin, name: "bob")
        #expect(bob?.role == .listener)
        #expect(bob?.peers == [Participant(id: ParticipantID("p1"), name: "ann", role: .publisher)])
        #expect(h.take(a).last == .peerJoined(Participant(id: ParticipantID("p2"), name: "bob", role: .listener)))
    }

    @Test func aFifthParticipantIsRefused() {
        let h = RendezvousHarness()
        let room = h.createRoom()
        for i in 0..<4 { #expect(h.join(room, name: "n\(i)").1 != nil) }
        let (fifth, joined) = h.join(room, name: "late")
        #expect(joined == nil)
        #expect(h.lastError(fifth) == .roomFull)
        #expect(h.closed[fifth] != nil)
    }

    @Test func wrongPinsAndUnknownRoomsAreRateLimitedPerAddress() {
        let h = RendezvousHarness()
        let rooms = (0..<ProtocolLimits.maxWrongPins).map { _ in h.createRoom() }
        for room in rooms.prefix(5) { _ = h.join(room, pin: Pin(room.pin.digits == "000000" ? "000001" : "000000")!, from: "203.0.113.9") }
        for _ in 0..<5 {
            let id = h.open(from: "203.0.113.9")
            h.send(id, .join(room: RoomID("0000-0001")!, pin: Pin("123456")!, name: "x"))
            #expect(h.lastError(id) == .noSuchRoom)
        }
        let (id, joined) = h.join(rooms.last!, from: "203.0.113.9")
        #expect(joined == nil && h.lastError(id) == .rateLimited)
        #expect(h.join(rooms.last!, from: "203.0.113.10").1 != nil)  // other addresses are unaffected
    }

    @Test func signalsAreRelayedOnlyWithinTheRoom() {
        let h = RendezvousHarness()
        let room = h.createRoom()
        let (a, _) = h.join(room, name: "ann")
        let (b, _) = h.join(room, name: "bob")
        let other = h.createRoom()
        let (c, _) = h.join(other, name: "cid")
        _ = h.take(a)
        h.send(a, .signal(to: ParticipantID("p2"), payload: .object(["sdp": "offer"])))
        #expect(h.take(b).last == .signal(from: ParticipantID("p1"), payload: .object(["sdp": "offer"])))
        h.send(c, .signal(to: ParticipantID("p2"), payload: 1))  // p2 of the other room: not c's
        #expect(h.lastError(c) == .noSuchPeer)
        h.send(a, .signal(to: ParticipantID("p1"), payload: 1))  // to oneself
        #expect(h.lastError(a) == .noSuchPeer)
        #expect(h.take(b).isEmpty)
    }

    @Test func protocolMisuseGetsErrorsWithoutAffectingOthers() {
        let h = RendezvousHarness()
        let room = h.createRoom()
        let (a, _) = h.join(room)
        let lobby = h.open()
        h.send(lobby, .signal(to: ParticipantID("p1"), payload: 1))
        #expect(h.lastError(lobby) == .notJoined)
        h.send(a, .join(room: room.room, pin: room.pin, name: "again"))
        #expect(h.lastError(a) == .alreadyJoined)
        for junk in ["", "null", "{}", #"{"type":"teleport"}"#, String(repeating: "[", count: 1000), "\u{0}"] {
            h.send(a, text: junk)
            #expect(h.lastError(a) == .badMessage, "\(junk.prefix(20))")
        }
        h.core.handle(.binary(lobby), now: h.clock.now())
        #expect(h.closed[a] == nil)
        let (_, joined) = h.join(room, name: "bob")
        #expect(joined?.peers.count == 1)
    }

    @Test func floodsCloseTheConnection() {
        let h = RendezvousHarness()
        let room = h.createRoom()
        let (a, _) = h.join(room)
        for _ in 0..<(ProtocolLimits.messageBurst + 5) { h.send(a, .ping) }
        #expect(h.lastError(a) == .flood)
        #expect(h.closed[a]?.code == CloseCode.policyViolation)
    }

    @Test func aSteadyPaceIsNotAFlood() {
        let h = RendezvousHarness()
        let room = h.createRoom()
        let (a, _) = h.join(room)
        for _ in 0..<1000 {
            h.clock.advance(by: .milliseconds(25))  // 40 a second, under the limit
            h.send(a, .ping)
        }
        #expect(h.closed[a] == nil)
    }

    @Test func leavingOrDroppingTellsTheOthersAtOnce() {
        let h = RendezvousHarness()
        let room = h.createRoom()
        let (a, _) = h.join(room, name: "ann")
        let (b, _) = h.join(room, name: "bob")
        let (c, _) = h.join(room, name: "cid")
        _ = h.take(a)
        h.send(b, .leave)
        #expect(h.take(a) == [.peerLeft(ParticipantID("p2"))])
        h.disconnect(b)  // the close that follows the leave says nothing more
        #expect(h.take(a).isEmpty)
        h.disconnect(c)
        #expect(h.take(a) == [.peerLeft(ParticipantID("p3"))])
        let (_, dan) = h.join(room, name: "dan")
        #expect(dan?.you == ParticipantID("p4"))  // ids are never reused
        #expect(dan?.peers.map(\.name) == ["ann"])
    }

    @Test func emptyRoomsExpireAfterTheIdleTime() {
        var config = RendezvousConfig()
        config.roomIdleTimeout = .seconds(30)
        let h = RendezvousHarness(config: config)
        let room = h.createRoom()
        let (a, _) = h.join(room)
        h.tick(after: .seconds(100))
        h.send(a, .ping)  // occupied rooms never expire
        #expect(h.core.roomCount == 1)
        h.disconnect(a)
        h.tick(after: .seconds(29))
        #expect(h.core.roomCount == 1)
        h.tick(after: .seconds(2))
        #expect(h.core.roomCount == 0)
        let (late, _) = h.join(room)
        #expect(h.lastError(late) == .noSuchRoom)
    }

    @Test func connectionsThatNeverJoinOrFallSilentAreClosed() {
        let h = RendezvousHarness()
        let room = h.createRoom()
        let lobby = h.open()
        let (a, _) = h.join(room)
        let (b, _) = h.join(room, name: "bob")
        h.tick(after: h.core.config.lobbyTimeout)
        #expect(h.closed[lobby] != nil)
        for _ in 0..<5 {
            h.clock.advance(by: .seconds(10))
            h.send(a, .ping)
            h.tick(after: .zero)
        }
        #expect(h.closed[a] == nil)
        #expect(h.closed[b]?.code == CloseCode.goingAway)
    }

    @Test func shutdownEndsEveryRoom() {
        let h = RendezvousHarness()
        let room = h.createRoom()
        let (a, _) = h.join(room)
        h.core.shutdown(reason: "host-left")
        while let output = h.core.pollOutput() {
            if case .send(let id, let text) = output { #expect(id == a && text.contains("room-closed")) }
            if case .close(let id, let code, _) = output { #expect(id == a && code == CloseCode.goingAway) }
        }
    }
}
