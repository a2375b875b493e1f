import Foundation
import Testing

/// A room locked by wrong pins, with real processes: a real `conf rendezvous`, a `conf host`
/// whose stdin answers knocks, a scripted guesser on raw WebSockets from other loopback
/// addresses, and `conf join` with the right pin (docs/SECURITY.md, "Guessing a pin").
@Suite struct KnockTests {
    func guess(_ server: RendezvousProcess, _ room: String, _ pin: String, from address: String) throws -> RawWebSocket {
        let socket = try RawWebSocket(port: server.port, room: room, from: address)
        socket.sendText(#"{"type":"join","room":"\#(room)","pin":"\#(pin)","name":"guesser"}"#)
        return socket
    }

    func wrongPin(_ n: Int, not pins: [String]) -> String {
        var value = n
        while pins.contains(String(format: "%06d", value)) { value += 1 }
        return String(format: "%06d", value)
    }

    @Test func pastTheBudgetTheRightPinKnocksAndTheHostAdmitsOrDenies() throws {
        let server = try RendezvousProcess(["--knock-timeout", "8"])
        let host = try ConfProcess(["host", "--server", server.address, "--name", "standup", "--as", "ann", "--json"], interactive: true)
        defer { host.signal(SIGTERM) }
        let room = try #require(host.waitForEvent("room"))
        let id = try #require(room["room"] as? String), pin = try #require(room["pin"] as? String)
        let listenPin = try #require(room["listen_pin"] as? String)
        #expect(host.waitForEvent("joined") != nil, "\(host.stderr)")

        // The guesser spends the room's budget from ten addresses of another /24 ...
        for i in 0..<10 {
            let socket = try guess(server, id, wrongPin(i, not: [pin, listenPin]), from: "127.0.1.\(i + 1)")
            #expect(socket.receiveJSON()?["code"] as? String == "wrong-pin")
        }
        // ... and from then on gets no answer, only the wait everyone gets.
        let waiting = try guess(server, id, wrongPin(10, not: [pin, listenPin]), from: "127.0.1.11")
        #expect(waiting.receiveJSON()?["type"] as? String == "knocking")

        let lee = try ConfProcess(["join", id, pin, "--server", server.address, "--as", "lee", "--json"])
        defer { lee.signal(SIGTERM) }
        #expect(lee.waitForEvent("knocking") != nil, "\(lee.stderr)")
        // The human line goes to stderr, a pipe of its own: it may come a moment after the event.
        #expect(ConfProcess.waitUntil(timeout: .seconds(5)) { lee.stderr.contains("waiting for someone in the call to let you in") },
                "\(lee.stderr)")
        let knock = try #require(host.waitForEvent("knock") { $0["name"] as? String == "lee" }, "\(host.stdout)")
        let leeKnock = try #require(knock["knock"] as? String)
        #expect(knock["role"] as? String == "publisher")
        host.send("admit \(leeKnock)")
        // The human line (stderr with --json) names the command.
        #expect(ConfProcess.waitUntil(timeout: .seconds(5)) { host.stderr.contains("type `admit \(leeKnock)`") }, "\(host.stderr)")
        #expect(lee.waitForEvent("joined") != nil, "\(lee.stderr)")
        #expect(host.waitForEvent("knock-ended") { $0["knock"] as? String == leeKnock && $0["outcome"] as? String == "admitted" } != nil)

        // The wrong pin's wait ends like an unanswered knock.
        var ended: [String: Any]?
        ConfProcess.waitUntil(timeout: .seconds(15)) {
            ended = waiting.receiveJSON()  // each try waits up to 5 s
            return ended != nil
        }
        #expect(ended?["type"] as? String == "error" && ended?["code"] as? String == "not-admitted", "\(ended ?? [:])")

        let dan = try ConfProcess(["join", id, pin, "--server", server.address, "--as", "dan", "--json"])
        let danKnock = try #require(host.waitForEvent("knock") { $0["name"] as? String == "dan" }?["knock"] as? String)
        host.send("deny \(danKnock)")
        #expect(host.waitForEvent("knock-ended") { $0["knock"] as? String == danKnock && $0["outcome"] as? String == "denied" } != nil)
        #expect(dan.waitForExit(timeout: .seconds(15)) == 10)
        #expect(dan.events(ofType: "error").first?["code"] as? String == "not-admitted")
        #expect(dan.stderr.contains("nobody in the call let you in"))
    }
}
