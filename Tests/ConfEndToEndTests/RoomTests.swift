import Foundation
import Testing

/// Real `conf rendezvous`, `conf host` and `conf join` processes on 127.0.0.1.
@Suite struct RoomTests {
    func join(_ server: RendezvousProcess, _ room: String, _ pin: String, as name: String, _ extra: [String] = []) throws -> ConfProcess {
        try ConfProcess(["join", room, pin, "--server", server.address, "--as", name, "--json"] + extra)
    }

    /// The ids a participant believes are in the room (itself included), from its events so far.
    func roster(_ p: ConfProcess) -> Set<String> {
        guard let joined = p.events(ofType: "joined").first, let me = joined["you"] as? String else { return [] }
        var ids = Set((joined["peers"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String })
        ids.insert(me)
        for event in p.events {
            if event["type"] as? String == "peer-joined", let id = event["peer"] as? String { ids.insert(id) }
            if event["type"] as? String == "peer-left", let id = event["peer"] as? String { ids.remove(id) }
        }
        return ids
    }

    @Test func fourJoinAndAllSeeTheSameRosterAndAFifthIsRefused() throws {
        let server = try RendezvousProcess()
        let host = try ConfProcess(["host", "--server", server.address, "--name", "standup", "--as", "ann", "--json"])
        let room = try #require(host.waitForEvent("room"))
        let id = try #require(room["room"] as? String), pin = try #require(room["pin"] as? String)
        #expect((room["join_command"] as? String) == "conf join \(id) \(pin) --server \(server.address)")
        var everyone = [host]
        for name in ["bob", "cid", "dee"] {
            let p = try join(server, id, pin, as: name)
            #expect(p.waitForEvent("joined") != nil, "\(name): \(p.stderr)")
            everyone.append(p)
        }
        let expected: Set<String> = ["p1", "p2", "p3", "p4"]
        for p in everyone {
            #expect(ConfProcess.waitUntil { roster(p) == expected }, "\(p.arguments): \(roster(p))")
        }
        let fifth = try join(server, id, pin, as: "eve")
        #expect(fifth.waitForExit() == 4)
        #expect(fifth.stderr.contains("is full"))
        #expect(fifth.events(ofType: "error").first?["code"] as? String == "room-full")
        for p in everyone { p.signal(SIGTERM) }
        for p in everyone { #expect(p.waitForExit() == 0) }
    }

    @Test func wrongPinUnknownRoomAndListenOnlyPin() throws {
        let server = try RendezvousProcess()
        let room = try server.createRoom()
        let wrong = String(format: "%06d", (Int(room.pin)! + 1) % 1_000_000 == Int(room.listenPin)! ? (Int(room.pin)! + 2) % 1_000_000 : (Int(room.pin)! + 1) % 1_000_000)
        let badPin = try join(server, room.room, wrong, as: "x")
        #expect(badPin.waitForExit() == 3)
        #expect(badPin.stderr.contains("wrong pin"))
        let noRoom = try join(server, room.room == "0000-0000" ? "0000-0001" : "0000-0000", room.pin, as: "x")
        #expect(noRoom.waitForExit() == 5)
        let listener = try join(server, room.room, room.listenPin, as: "lou", ["--duration", "0.5"])
        #expect(listener.waitForEvent("joined")?["role"] as? String == "listener")
        #expect(listener.waitForExit() == 0)
        #expect(listener.events(ofType: "left").first?["reason"] as? String == "duration")
    }

    /// Its seat is kept for the resume grace first (it may come back with its resume token).
    @Test func aKilledParticipantDisappearsFromTheOthersRostersAfterTheResumeGrace() throws {
        let server = try RendezvousProcess(["--resume-grace", "2"])
        let room = try server.createRoom()
        let a = try join(server, room.room, room.pin, as: "ann")
        #expect(a.waitForEvent("joined") != nil)
        let b = try join(server, room.room, room.pin, as: "bob")
        #expect(b.waitForEvent("joined") != nil)
        #expect(a.waitForEvent("peer-joined") { $0["name"] as? String == "bob" } != nil)
        b.signal(SIGKILL)
        let killed = ContinuousClock.now
        let left = a.waitForEvent("peer-left", timeout: .seconds(8))
        #expect(left?["peer"] as? String == "p2")
        #expect(ContinuousClock.now - killed >= .milliseconds(1500))
        a.signal(SIGINT)
        #expect(a.waitForExit() == 0)
    }

    @Test func aCleanLeaveIsSeenAtOnce() throws {
        let server = try RendezvousProcess()
        let room = try server.createRoom()
        let a = try join(server, room.room, room.pin, as: "ann")
        #expect(a.waitForEvent("joined") != nil)
        let b = try join(server, room.room, room.pin, as: "bob", ["--duration", "0.3"])
        #expect(b.waitForExit() == 0)
        // Already there when b has exited: b's leave was relayed before its connection closed.
        #expect(a.waitForEvent("peer-left", timeout: .seconds(1)) != nil)
    }

    @Test func aKilledRendezvousMakesAClientAloneExit6() throws {
        let server = try RendezvousProcess()
        let room = try server.createRoom()
        let a = try join(server, room.room, room.pin, as: "ann")
        #expect(a.waitForEvent("joined") != nil)
        server.process.signal(SIGKILL)
        // Nobody connected and the rendezvous gone: exit 6 (after at most 30 s of trying to resume).
        #expect(a.waitForExit(timeout: .seconds(40)) == 6)
        #expect(a.stderr.contains("lost the connection to the rendezvous"))
        #expect(a.events(ofType: "left").last?["reason"] as? String == "rendezvous-lost")
    }

    @Test func anUnreachableRendezvousExits6WithAHint() throws {
        let server = try RendezvousProcess()
        let port = server.port
        server.process.signal(SIGKILL)
        _ = server.process.waitForExit()
        let p = try ConfProcess(["join", "1234-5678", "123456", "--server", "127.0.0.1:\(port)"])
        #expect(p.waitForExit() == 6)
        #expect(p.stderr.contains("cannot reach the rendezvous at wss://127.0.0.1:\(port)"))
        #expect(p.stderr.contains("is conf host or conf rendezvous running there"), "\(p.stderr)")
    }

    @Test func wrongPinsAreRateLimited() throws {
        let server = try RendezvousProcess()
        let room = try server.createRoom()
        let wrong = room.pin == "000000" || room.listenPin == "000000" ? (room.pin == "000001" || room.listenPin == "000001" ? "000002" : "000001") : "000000"
        for _ in 0..<10 {
            let p = try join(server, room.room, wrong, as: "mallory")
            #expect(p.waitForExit() == 3)
        }
        let limited = try join(server, room.room, room.pin, as: "mallory")
        #expect(limited.waitForExit() == 7)
        #expect(limited.stderr.contains("wait a minute"))
    }

    @Test func embeddedHostEndsTheRoomWhenItLeaves() throws {
        let host = try ConfProcess(["host", "--listen", "127.0.0.1:0", "--name", "standup", "--as", "ann", "--json"])
        let room = try #require(host.waitForEvent("room"))
        let command = try #require(room["join_command"] as? String).split(separator: " ").map(String.init)
        #expect(command.prefix(2) == ["conf", "join"] && command[4] == "--server" && command[5].hasPrefix("wss://127.0.0.1:")
                && command[6] == "--fingerprint", "\(command)")
        let guest = try ConfProcess(Array(command.dropFirst()) + ["--as", "bob", "--json"])
        #expect(guest.waitForEvent("joined")?["peers"] as? [[String: Any]] != nil)
        #expect(host.waitForEvent("peer-joined") { $0["name"] as? String == "bob" } != nil)
        host.signal(SIGINT)
        #expect(host.waitForExit() == 0)
        #expect(guest.waitForExit() == 0)
        #expect(guest.events(ofType: "left").first?["reason"] as? String == "host-left")
    }

    @Test func humanOutputWithoutJSON() throws {
        let host = try ConfProcess(["host", "--listen", "127.0.0.1:0", "--name", "standup", "--as", "ann", "--duration", "0.5"])
        #expect(host.waitForExit() == 0)
        #expect(host.stdout.contains("Room standup  id "))
        #expect(host.stdout.contains("Invite others with this link (a browser opens it; so does conf join LINK):\n  https://127.0.0.1:"))
        #expect(host.stdout.contains("Left the room (the duration ran out)."))
        #expect(!host.stdout.contains("{\""))
    }

    /// Every JSON line starts with `type`, `t` (seconds since the process started, never going
    /// back) and `at` (UTC with milliseconds, today): a failure's `error` and `left` too.
    @Test func everyEventCarriesItsTimeSinceStartAndTheTimeOfDay() throws {
        let before = Date()
        let server = try RendezvousProcess()
        let host = try ConfProcess(["host", "--server", server.address, "--as", "ann", "--json", "--duration", "4",
                                    "--audio-source", "silence", "--audio-sink", "none"])
        let room = try #require(host.waitForEvent("room"))
        let id = try #require(room["room"] as? String), pin = try #require(room["pin"] as? String)
        let bob = try join(server, id, pin, as: "bob", ["--duration", "2", "--audio-source", "silence", "--audio-sink", "none"])
        let wrong = try join(server, id, pin == "111111" ? "222222" : "111111", as: "eve")
        #expect(wrong.waitForExit() == 3)
        #expect(bob.waitForExit(timeout: .seconds(15)) == 0, "\(bob.stderr)")
        #expect(host.waitForExit(timeout: .seconds(15)) == 0, "\(host.stderr)")
        let after = Date()
        let pattern = try Regex(#"^\{"type":"[a-z-]+","t":[0-9]+(\.[0-9]{1,3})?,"at":"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3})Z","#)
        let format = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)
        for p in [host, bob, wrong] {
            let lines = p.stdout.split(separator: "\n")
            #expect(lines.count >= 2, "\(p.arguments): \(p.stdout)")
            #expect(p.events(ofType: "left").count == 1)
            var previous = 0.0
            for line in lines {
                guard let match = try pattern.firstMatch(in: String(line)) else {
                    Issue.record("\(p.arguments): not type, t, at first: \(line)")
                    continue
                }
                let event = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                let t = try #require(event["t"] as? Double)
                #expect(t >= previous && t < 30, "\(line)")
                previous = t
                let at = try format.parse(String(match.output[2].substring ?? "") + "Z")
                #expect(at >= before.addingTimeInterval(-1) && at <= after.addingTimeInterval(1), "\(line)")
            }
        }
        #expect(wrong.events(ofType: "error").first?["code"] as? String == "wrong-pin")
    }
}
