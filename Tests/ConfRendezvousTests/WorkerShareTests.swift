import ConfRendezvous
import ConfWire
import Testing

/// Rooms split between a rendezvous's workers by id, and the request line that says which worker
/// a new connection belongs to.
@Suite struct WorkerShareTests {
    @Test func aRoomBelongsToItsIdModuloTheWorkers() {
        #expect(WorkerShare.owner(of: RoomID("0000-0007")!, among: 3) == 1)
        #expect(WorkerShare.owner(of: RoomID("9999-9999")!, among: 2) == 1)
        #expect(WorkerShare.owner(of: RoomID("1234-5678")!, among: 1) == 0)
        #expect(WorkerShare(index: 2, count: 3)?.owns(RoomID("0000-0005")!) == true)
        #expect(WorkerShare(index: 3, count: 3) == nil && WorkerShare(index: 0, count: 0) == nil)
    }

    @Test func aWorkerMintsItsOwnIdsAndHandsJoinsForOthersRoomsToThem() throws {
        var config = RendezvousConfig()
        config.workers = WorkerShare(index: 1, count: 4)
        config.partition = RoomPartition(index: 2, count: 3)
        config.roomsPerMinutePerAddress = 1_000
        config.roomsPerMinutePerNetwork = 4_000
        config.wrongPinsPerClient = 2
        let h = RendezvousHarness(config: config)
        let rooms = (0..<100).map { _ in h.createRoom() }
        #expect(rooms.allSatisfy { WorkerShare.owner(of: $0.room, among: 4) == 1 && $0.room.rawValue.hasPrefix("2") })
        for _ in 0..<4 {
            let id = h.open()
            h.send(id, .join(room: RoomID("2000-0000")!, pin: Pin("123456")!, name: "ann"))  // worker 0's
            let handed = try #require(h.handedOver[id])
            #expect(handed.worker == 0 && h.messages(id).isEmpty && h.closed[id] == nil, "nothing is said on it here")
            guard case .error(.wrongInstance, let message) = handed.otherwise else { Issue.record("\(handed.otherwise)"); continue }
            #expect(message.contains("/v1/ws?room=2000-0000"))
            h.send(id, .join(room: rooms[0].room, pin: rooms[0].pin, name: "bob"))
            #expect(h.messages(id).isEmpty, "forgotten: what follows on it here is ignored")
        }
        #expect(h.join(rooms[0]).1 != nil, "not counted as wrong pins")
        let resuming = h.open()
        h.send(resuming, text: #"{"type":"resume","token":"x"}"#)
        #expect(h.lastError(resuming) == .resumeRefused, "a token that is not one is refused where it arrived")
        let other = h.open()
        h.send(other, .join(room: RoomID("1000-0001")!, pin: Pin("123456")!, name: "cy"))  // instance 1's
        #expect(h.lastError(other) == .wrongInstance && h.handedOver[other] == nil, "another instance's room: refused")
    }

    @Test(arguments: [
        ("GET /v1/ws?room=4821-7734 HTTP/1.1\r\nHost: x\r\n", RequestRoute.room(RoomID("4821-7734")!)),
        ("GET /v1/ws?x=1&room=48217734 HTTP/1.1\r\n", .room(RoomID("4821-7734")!)),
        ("GET /v1/ws HTTP/1.1\r\n", .webSocket),
        ("GET /v1/ws?room=12 HTTP/1.1\r\n", .webSocket),
        ("GET /v1/ws?room=4821-7734%00 HTTP/1.1\r\n", .webSocket),
        ("GET /v1/wsx?room=4821-7734 HTTP/1.1\r\n", .anywhere),
        ("POST /v1/rooms HTTP/1.1\r\n", .anywhere),
        ("GET /v1/health?room=4821-7734 HTTP/1.1\r\n", .anywhere),
        // The absolute form a server must accept (RFC 9112 3.2.2), as some proxies pass it on.
        ("GET ws://rv.example:7373/v1/ws?room=4821-7734 HTTP/1.1\r\n", .room(RoomID("4821-7734")!)),
        ("GET http://rv.example/v1/ws?room=4821-7734 HTTP/1.1\r\n", .room(RoomID("4821-7734")!)),
        ("GET http://rv.example/v1/health?room=4821-7734 HTTP/1.1\r\n", .anywhere),
        ("GET ws://rv.example?room=4821-7734 HTTP/1.1\r\n", .anywhere),
        ("GET ws://rv.example?x=/v1/ws?room=4821-7734 HTTP/1.1\r\n", .anywhere),
        ("GET /v1/ws?room=4821-7734", .incomplete),
        ("\u{FF}\u{FE}garbage\n", .anywhere),
        ("", .incomplete),
    ])
    func theRequestLineSaysWhichRoom(_ head: String, _ route: RequestRoute) {
        #expect(RequestRoute.of(Array(head.utf8)) == route)
    }

    @Test func aLongLineWithoutAnEndIsServedWhereItArrived() {
        #expect(RequestRoute.of([UInt8](repeating: UInt8(ascii: "a"), count: RequestRoute.longestRequestLine)) == .anywhere)
        #expect(RequestRoute.of([UInt8](repeating: UInt8(ascii: "a"), count: 100)) == .incomplete)
    }
}
