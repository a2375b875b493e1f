import Foundation
import Testing

/// Seats taken back with a resume token from a real `conf rendezvous`, across a kill and a
/// restart with the same `--state-dir` (docs/SECURITY.md, "Resume tokens").
@Suite struct ResumeTests {
    func join(_ server: RendezvousProcess, _ room: String, _ pin: String, _ name: String) throws -> (RawWebSocket, [String: Any]) {
        let socket = try RawWebSocket(port: server.port, room: room)
        socket.sendText(#"{"type":"join","room":"\#(room)","pin":"\#(pin)","name":"\#(name)"}"#)
        guard let joined = socket.receiveJSON(), joined["type"] as? String == "joined" else { throw TestFailure("\(name) could not join") }
        return (socket, joined)
    }

    func resume(_ server: RendezvousProcess, _ token: String, room: String) throws -> (RawWebSocket, [String: Any]?) {
        let socket = try RawWebSocket(port: server.port, room: room)
        socket.sendText(#"{"type":"resume","token":"\#(token)"}"#)
        return (socket, socket.receiveJSON())
    }

    @Test func aRestartedRendezvousWithTheSameSecretGivesTheSeatsBack() throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("conf-resume-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: state) }
        let first = try RendezvousProcess(["--state-dir", state])
        let room = try first.createRoom(name: "retro")
        let (_, ann) = try join(first, room.room, room.pin, "ann")
        let (_, bob) = try join(first, room.room, room.listenPin, "bob")
        let annToken = try #require(ann["resume_token"] as? String), bobToken = try #require(bob["resume_token"] as? String)
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: state + "/rendezvous-secret")[.posixPermissions] as? Int)
        #expect(mode == 0o600)
        first.process.signal(SIGKILL)
        #expect(first.process.waitForExit() != nil)

        let second = try RendezvousProcess(["--state-dir", state])
        defer { second.process.signal(SIGTERM) }
        let (bobSocket, bobBack) = try resume(second, bobToken, room: room.room)
        #expect(bobBack?["type"] as? String == "joined" && bobBack?["you"] as? String == "p2", "\(bobBack ?? [:])")
        #expect(bobBack?["role"] as? String == "listener" && bobBack?["name"] as? String == "retro")
        let (_, annBack) = try resume(second, annToken, room: room.room)
        #expect(annBack?["you"] as? String == "p1" && (annBack?["peers"] as? [[String: Any]])?.first?["name"] as? String == "bob")
        #expect(bobSocket.receiveJSON()?["type"] as? String == "peer-joined")
        // The pins are the same after the restart: they come from the secret.
        let (_, newcomer) = try join(second, room.room, room.pin, "cid")
        #expect((newcomer["peers"] as? [[String: Any]])?.count == 2)

        let other = try RendezvousProcess(["--state-dir", state + "-other"])
        defer { other.process.signal(SIGTERM); try? FileManager.default.removeItem(atPath: state + "-other") }
        let (_, refused) = try resume(other, annToken, room: room.room)
        #expect(refused?["code"] as? String == "resume-refused")
    }
}

/// The client side and the server side together: real `conf join`s take their seats back when a
/// killed `conf rendezvous` comes back on the same address with the same `--state-dir`.
@Suite struct RendezvousRestartTests {
    @Test func participantsTakeTheirSeatsBackFromARestartedRendezvous() throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("conf-restart-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: state) }
        let first = try RendezvousProcess(["--state-dir", state])
        let room = try first.createRoom()
        let ann = try ConfProcess(["join", room.room, room.pin, "--server", first.address, "--as", "ann", "--json"])
        #expect(ann.waitForEvent("joined") != nil)
        let bob = try ConfProcess(["join", room.room, room.pin, "--server", first.address, "--as", "bob", "--json"])
        #expect(bob.waitForEvent("joined") != nil)
        first.process.signal(SIGKILL)
        #expect(ann.waitForEvent("rendezvous-lost", timeout: .seconds(5)) != nil, "ann: \(ann.stdout)")

        let second = try ConfProcess(["rendezvous", "--listen", first.endpoint, "--no-tls", "--state-dir", state])
        defer { second.signal(SIGTERM) }
        #expect(second.waitForOutput(containing: "listening on") != nil, "\(second.stderr)")
        for p in [ann, bob] {
            #expect(p.waitForEvent("rendezvous-back", timeout: .seconds(20)) != nil, "\(p.arguments): \(p.stdout) \(p.stderr)")
            #expect(p.events(ofType: "rendezvous-closed").isEmpty)
        }
        ann.signal(SIGTERM)
        bob.signal(SIGTERM)
        #expect(ann.waitForExit() == 0 && bob.waitForExit() == 0)
    }
}
