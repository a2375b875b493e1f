import Foundation
import Testing

/// The call goes on around a participant that fails: real processes, a hand-written joiner.
@Suite struct CallGoesOnTests {
    /// A `conf host` and the port of its embedded rendezvous on 127.0.0.1.
    static func host(_ extra: [String] = []) throws -> (ConfProcess, room: String, pin: String, listenPin: String, server: String) {
        // Plain ws://: the tests that use it reach the rendezvous with a raw WebSocket too.
        let host = try ConfProcess(["host", "--listen", "127.0.0.1:0", "--no-tls", "--name", "standup", "--as", "ann", "--json"] + extra, interactive: true)
        let room = try #require(host.waitForEvent("room"))
        let command = try #require(room["join_command"] as? String).split(separator: " ").map(String.init)
        return (host, command[2], command[3], try #require(room["listen_pin"] as? String), command[5])
    }

    @Test func aJoinerThatNeverConnectsDoesNotEndTheHostsRoom() throws {
        let (host, room, pin, listenPin, server) = try Self.host(["--connect-timeout", "2"])
        let port = try #require(UInt16(server.split(separator: ":").last!))
        // A listener that joins and then answers nothing: no offer, no candidates, ever.
        let ghost = try RawWebSocket(port: port, room: room)
        ghost.sendText(#"{"type":"join","room":"\#(room)","pin":"\#(listenPin)","name":"ghost"}"#)
        #expect(ghost.receiveJSON()?["type"] as? String == "joined")
        let failed = host.waitForEvent("peer-disconnected", timeout: .seconds(6))
        #expect(failed?["code"] as? String == "connect-timeout", "host: \(host.stdout)")
        #expect((failed?["reason"] as? String)?.contains("could not connect within 2 s") == true)
        // The host stays (it used to exit 8 here), and the next joiner gets a working call.
        #expect(host.waitForExit(timeout: .seconds(3)) == nil, "host: \(host.stderr)")
        let bob = try ConfProcess(["join", room, pin, "--server", server, "--as", "bob", "--json", "--connect-timeout", "2"],
                                  interactive: true)
        #expect(bob.waitForEvent("peer-connected", timeout: .seconds(15)) { $0["name"] as? String == "ann" } != nil)
        // bob's own link to the ghost fails too (bob offered it); bob stays, connected to ann.
        #expect(bob.waitForEvent("peer-disconnected", timeout: .seconds(6)) { $0["code"] as? String == "connect-timeout" } != nil)
        #expect(bob.waitForExit(timeout: .seconds(1)) == nil, "bob: \(bob.stderr)")
        host.send("say still here")
        #expect(bob.waitForEvent("chat", timeout: .seconds(5)) { $0["text"] as? String == "still here" } != nil)
        bob.signal(SIGTERM)
        host.signal(SIGTERM)
        #expect(bob.waitForExit() == 0 && host.waitForExit() == 0)
    }

    @Test func aJoinerThatReachesNobodyStillEndsWithExit8() throws {
        let server = try RendezvousProcess()
        let room = try server.createRoom()
        let ghost = try RawWebSocket(port: server.port, room: room.room)
        ghost.sendText(#"{"type":"join","room":"\#(room.room)","pin":"\#(room.pin)","name":"ghost"}"#)
        #expect(ghost.receiveJSON()?["type"] as? String == "joined")
        let bob = try ConfProcess(["join", room.room, room.pin, "--server", server.address, "--as", "bob", "--json", "--connect-timeout", "2"])
        #expect(bob.waitForExit(timeout: .seconds(8)) == 8, "bob: \(bob.stdout)")
        #expect(bob.stderr.contains("could not connect to any peer"))
    }
}
