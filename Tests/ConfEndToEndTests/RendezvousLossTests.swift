import Foundation
import Testing

/// The peer-to-peer call outlives its rendezvous: real processes.
@Suite struct RendezvousLossTests {
    /// Waits until `process` has `count` peer-connected events.
    static func connected(_ process: ConfProcess, _ count: Int) -> Bool {
        ConfProcess.waitUntil(timeout: .seconds(20)) { process.events(ofType: "peer-connected").count >= count }
    }

    /// A room on `server` with ann and bob in it, their link up.
    static func annAndBobConnected(through server: RendezvousProcess) throws -> (room: (room: String, pin: String, listenPin: String), ann: ConfProcess, bob: ConfProcess) {
        let room = try server.createRoom()
        let ann = try ConfProcess(["join", room.room, room.pin, "--server", server.address, "--as", "ann", "--json"], interactive: true)
        #expect(ann.waitForEvent("joined") != nil)
        let bob = try ConfProcess(["join", room.room, room.pin, "--server", server.address, "--as", "bob", "--json"], interactive: true)
        #expect(Self.connected(ann, 1) && Self.connected(bob, 1))
        return (room, ann, bob)
    }

    @Test func whenTheHostLeavesTheOthersTalkOnUntilNobodyIsLeft() throws {
        let (host, room, pin, _, server) = try CallGoesOnTests.host()
        let bob = try ConfProcess(["join", room, pin, "--server", server, "--as", "bob", "--json"], interactive: true)
        #expect(Self.connected(bob, 1))
        let cat = try ConfProcess(["join", room, pin, "--server", server, "--as", "cat", "--json"], interactive: true)
        #expect(Self.connected(bob, 2) && Self.connected(cat, 2) && Self.connected(host, 2), "bob: \(bob.stdout)\ncat: \(cat.stdout)")
        host.signal(SIGINT)
        #expect(host.waitForExit() == 0)
        // bob and cat are told nobody new can join, and stay in their call.
        #expect(bob.waitForEvent("rendezvous-closed", timeout: .seconds(5))?["reason"] as? String == "host-left", "bob: \(bob.stdout)")
        #expect(cat.waitForEvent("rendezvous-closed", timeout: .seconds(5))?["reason"] as? String == "host-left")
        #expect(ConfProcess.waitUntil(timeout: .seconds(5)) { bob.stderr.contains("nobody new can join") }, "bob: \(bob.stderr)")
        #expect(bob.waitForExit(timeout: .seconds(2)) == nil && cat.waitForExit(timeout: .milliseconds(100)) == nil)
        bob.send("say still talking")
        #expect(cat.waitForEvent("chat", timeout: .seconds(5)) { $0["text"] as? String == "still talking" } != nil)
        // cat leaves: bob has no link left and ends by itself.
        cat.signal(SIGTERM)
        #expect(cat.waitForExit() == 0)
        #expect(bob.waitForExit(timeout: .seconds(8)) == 0, "bob: \(bob.stdout)")
    }

    @Test func aKilledRendezvousDoesNotEndTheCall() throws {
        let server = try RendezvousProcess()
        let (room, ann, bob) = try Self.annAndBobConnected(through: server)
        server.process.signal(SIGKILL)
        #expect(ann.waitForEvent("rendezvous-lost", timeout: .seconds(5)) != nil, "ann: \(ann.stdout)")
        #expect(bob.waitForEvent("rendezvous-lost", timeout: .seconds(5)) != nil)
        #expect(ConfProcess.waitUntil(timeout: .seconds(5)) { ann.stderr.contains("the call goes on") }, "ann: \(ann.stderr)")
        // Both stay (they used to exit 6 at once) and chat still flows peer to peer.
        #expect(ann.waitForExit(timeout: .seconds(2)) == nil && bob.waitForExit(timeout: .milliseconds(100)) == nil, "ann: \(ann.stderr)")
        ann.send("say over the direct link")
        #expect(bob.waitForEvent("chat", timeout: .seconds(5)) { $0["text"] as? String == "over the direct link" } != nil)
        ann.signal(SIGTERM)
        bob.signal(SIGTERM)
        #expect(ann.waitForExit() == 0 && bob.waitForExit() == 0)
    }

    @Test func aRestartedRendezvousGivesTheSeatsBack() throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("conf-rdv-state-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: state) }
        let server = try RendezvousProcess(["--state-dir", state.path])
        let (room, ann, bob) = try Self.annAndBobConnected(through: server)
        // The operator restarts it (SIGTERM, as systemd does): a restart does not end the rooms.
        server.process.signal(SIGTERM)
        #expect(server.process.waitForExit() == 0)
        #expect(ann.waitForEvent("rendezvous-lost", timeout: .seconds(5)) != nil, "ann: \(ann.stdout)")
        #expect(bob.waitForEvent("rendezvous-lost", timeout: .seconds(5)) != nil)
        #expect(ann.events(ofType: "rendezvous-closed").isEmpty)
        // The same rendezvous comes back on the same port with the same secret: both take their
        // seats back, with the links they kept.
        let again = try RendezvousProcess(["--state-dir", state.path], listen: server.endpoint)
        #expect(ann.waitForEvent("rendezvous-back", timeout: .seconds(20)) != nil, "ann: \(ann.stdout)\n\(ann.stderr)")
        #expect(bob.waitForEvent("rendezvous-back", timeout: .seconds(20)) != nil, "bob: \(bob.stderr)")
        #expect(ann.events(ofType: "peer-left").isEmpty && ann.events(ofType: "peer-connected").count == 1)
        ann.send("say back in the room")
        #expect(bob.waitForEvent("chat", timeout: .seconds(5)) { $0["text"] as? String == "back in the room" } != nil, "ann: \(ann.stdout)\nbob: \(bob.stdout)")
        // And the room takes newcomers again.
        let cat = try ConfProcess(["join", room.room, room.pin, "--server", again.address, "--as", "cat", "--json"])
        #expect(Self.connected(cat, 2), "cat: \(cat.stdout)\n\(cat.stderr)")
        for process in [ann, bob, cat] { process.signal(SIGTERM) }
        #expect(ann.waitForExit() == 0 && bob.waitForExit() == 0 && cat.waitForExit() == 0)
    }

    @Test func aRendezvousThatNoLongerKnowsTheRoomLeavesTheCallGoingOn() throws {
        let first = FileManager.default.temporaryDirectory.appendingPathComponent("conf-rdv-state-\(UUID().uuidString.prefix(8))")
        let second = FileManager.default.temporaryDirectory.appendingPathComponent("conf-rdv-state-\(UUID().uuidString.prefix(8))")
        defer { for dir in [first, second] { try? FileManager.default.removeItem(at: dir) } }
        let server = try RendezvousProcess(["--state-dir", first.path])
        let (room, ann, bob) = try Self.annAndBobConnected(through: server)
        server.process.signal(SIGKILL)
        _ = server.process.waitForExit()
        #expect(ann.waitForEvent("rendezvous-lost", timeout: .seconds(5)) != nil)
        // Back on the same port with another secret: the tokens are refused; the call goes on.
        let again = try RendezvousProcess(["--state-dir", second.path], listen: server.endpoint)
        defer { withExtendedLifetime(again) {} }
        let closed = ann.waitForEvent("rendezvous-closed", timeout: .seconds(20))
        #expect(closed?["reason"] as? String == "resume-refused", "ann: \(ann.stdout)\n\(ann.stderr)")
        // The human line goes to stderr, which may be read a moment after the event on stdout.
        #expect(ConfProcess.waitUntil(timeout: .seconds(5)) {
            ann.stderr.contains("no longer has this room") && ann.stderr.contains("nobody new can join")
        }, "ann: \(ann.stderr)")
        #expect(bob.waitForEvent("rendezvous-closed", timeout: .seconds(20)) != nil)
        ann.send("say still here")
        #expect(bob.waitForEvent("chat", timeout: .seconds(5)) { $0["text"] as? String == "still here" } != nil)
        // No more reconnecting: bob leaves, and ann, with no link left, ends by herself.
        bob.signal(SIGTERM)
        #expect(bob.waitForExit() == 0)
        #expect(ann.waitForExit(timeout: .seconds(8)) == 0, "ann: \(ann.stdout)")
        #expect(ann.events(ofType: "left").last?["reason"] as? String == "nobody-left")
    }
}
