import Foundation
import Testing

/// The peer-to-peer call outlives its rendezvous: real processes.
@Suite struct RendezvousLossTests {
    /// Waits until `process` has `count` peer-connected events.
    static func connected(_ process: ConfProcess, _ count: Int) -> Bool {
        ConfProcess.waitUntil(timeout: .seconds(20)) { process.events(ofType: "peer-connected").count >= count }
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
        #expect(bob.stderr.contains("nobody new can join"))
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
        let room = try server.createRoom()
        let ann = try ConfProcess(["join", room.room, room.pin, "--server", server.address, "--as", "ann", "--json"], interactive: true)
        #expect(ann.waitForEvent("joined") != nil)
        let bob = try ConfProcess(["join", room.room, room.pin, "--server", server.address, "--as", "bob", "--json"], interactive: true)
        #expect(Self.connected(ann, 1) && Self.connected(bob, 1))
        server.process.signal(SIGKILL)
        #expect(ann.waitForEvent("rendezvous-lost", timeout: .seconds(5)) != nil, "ann: \(ann.stdout)")
        #expect(bob.waitForEvent("rendezvous-lost", timeout: .seconds(5)) != nil)
        #expect(ann.stderr.contains("the call goes on"))
        // Both stay (they used to exit 6 at once) and chat still flows peer to peer.
        #expect(ann.waitForExit(timeout: .seconds(2)) == nil && bob.waitForExit(timeout: .milliseconds(100)) == nil, "ann: \(ann.stderr)")
        ann.send("say over the direct link")
        #expect(bob.waitForEvent("chat", timeout: .seconds(5)) { $0["text"] as? String == "over the direct link" } != nil)
        ann.signal(SIGTERM)
        bob.signal(SIGTERM)
        #expect(ann.waitForExit() == 0 && bob.waitForExit() == 0)
    }
}
