import Foundation
import Testing

/// Hostile input against a real `conf rendezvous`: each case gets an error (and a close where it
/// must), and none disturbs the server or other rooms.
@Suite struct HostileInputTests {
    /// A participant in its own room, to check that abuse elsewhere leaves it alone.
    struct Bystander {
        let socket: RawWebSocket
        init(_ server: RendezvousProcess) throws {
            let room = try server.createRoom(name: "bystanders")
            socket = try RawWebSocket(port: server.port, room: room.room)
            socket.sendText(#"{"type":"join","room":"\#(room.room)","pin":"\#(room.pin)","name":"by"}"#)
            guard socket.receiveJSON()?["type"] as? String == "joined" else { throw TestFailure("bystander could not join") }
        }
        func stillServed() -> Bool {
            socket.sendText(#"{"type":"ping"}"#)
            return socket.receiveJSON()?["type"] as? String == "pong"
        }
    }

    func joined(_ server: RendezvousProcess, room: (room: String, pin: String, listenPin: String), name: String = "x") throws -> RawWebSocket {
        let socket = try RawWebSocket(port: server.port, room: room.room)
        socket.sendText(#"{"type":"join","room":"\#(room.room)","pin":"\#(room.pin)","name":"\#(name)"}"#)
        guard socket.receiveJSON()?["type"] as? String == "joined" else { throw TestFailure("join failed") }
        return socket
    }

    @Test func malformedMessagesGetErrorsNamingTheProblem() throws {
        let server = try RendezvousProcess()
        let bystander = try Bystander(server)
        let socket = try joined(server, room: try server.createRoom())
        for (text, code, words) in [
            ("this is not json", "bad-message", "invalid JSON"),
            (#"{"type":42}"#, "bad-message", "must be a string"),
            (#"{"type":"teleport"}"#, "bad-message", "unknown message type"),
            (#"["join"]"#, "bad-message", "JSON object"),
            (String(repeating: "[", count: 5000), "bad-message", "nested deeper"),
            (#"{"type":"join","room":"1234-5678","pin":"123456","name":"again"}"#, "already-joined", "already joined"),
            (#"{"type":"signal","to":"p9","payload":{}}"#, "no-such-peer", "no participant p9"),
            (#"{"type":"signal","to":"p2","payload":""# + String(repeating: "x", count: 40_000) + #""}"#, "too-large", "larger than"),
        ] {
            socket.sendText(text)
            let answer = socket.receiveJSON()
            #expect(answer?["type"] as? String == "error", "\(text.prefix(30))")
            #expect(answer?["code"] as? String == code, "\(text.prefix(30))")
            #expect((answer?["message"] as? String)?.contains(words) == true, "\(text.prefix(30)): \(answer ?? [:])")
        }
        socket.sendText(#"{"type":"ping"}"#)
        #expect(socket.receiveJSON()?["type"] as? String == "pong")  // still connected
        #expect(bystander.stillServed())
    }

    @Test func signalBeforeJoiningIsRefused() throws {
        let server = try RendezvousProcess()
        let socket = try RawWebSocket(port: server.port)
        socket.sendText(#"{"type":"signal","to":"p1","payload":{}}"#)
        #expect(socket.receiveJSON()?["code"] as? String == "not-joined")
    }

    @Test func oversizedFramesCloseTheConnection() throws {
        let server = try RendezvousProcess()
        let bystander = try Bystander(server)
        let socket = try RawWebSocket(port: server.port)
        socket.sendFrame(opcode: 0x1, payload: Array(repeating: UInt8(ascii: "a"), count: 70_000))
        #expect(socket.closedByServer(code: 1009))
        #expect(bystander.stillServed())
    }

    @Test func binaryFramesAndInvalidUTF8AreRefused() throws {
        let server = try RendezvousProcess()
        let bystander = try Bystander(server)
        let binary = try RawWebSocket(port: server.port)
        binary.sendFrame(opcode: 0x2, payload: [1, 2, 3])
        #expect(binary.receiveJSON()?["code"] as? String == "bad-message")
        #expect(binary.receiveClose() == 1003)
        let invalid = try RawWebSocket(port: server.port)
        invalid.sendFrame(opcode: 0x1, payload: [0x7B, 0xC3, 0x28, 0x7D])
        #expect(invalid.receiveClose() != nil)  // libsoup closes on invalid UTF-8 in a text frame (1007)
        #expect(bystander.stillServed())
    }

    @Test func floodsAreCutOff() throws {
        let server = try RendezvousProcess()
        let bystander = try Bystander(server)
        let socket = try joined(server, room: try server.createRoom())
        for _ in 0..<400 { socket.sendText(#"{"type":"ping"}"#) }
        var sawFlood = false
        var closeCode: UInt16?
        while let frame = socket.receive() {
            if case .text(let text) = frame, text.contains(#""code":"flood""#) { sawFlood = true }
            if case .close(let code) = frame { closeCode = code; break }
        }
        #expect(sawFlood)
        #expect(closeCode == 1008)
        #expect(bystander.stillServed())
    }

    @Test func garbageBeforeTheHandshakeDoesNotHurt() throws {
        let server = try RendezvousProcess()
        let bystander = try Bystander(server)
        let raw = try TCPConnection(port: server.port)
        raw.write(Array(repeating: 0xFF, count: 10_000))
        let half = try TCPConnection(port: server.port)
        half.write(Array("GET /v1/ws HTTP/1.1\r\nHost: x\r\n".utf8))  // never finished
        #expect(bystander.stillServed())
    }

    @Test func badHTTPRequestsGetJSONErrors() throws {
        let server = try RendezvousProcess()
        let port = server.port
        let (s1, b1) = try HTTP.request(port: port, method: "POST", path: "/v1/rooms", body: "{nope")
        #expect(s1 == 400 && b1.contains("invalid JSON"))
        let (s2, b2) = try HTTP.request(port: port, method: "POST", path: "/v1/rooms", body: #"{"name":"x"}"#)
        #expect(s2 == 400 && b2.contains("too short"))
        let (s3, _) = try HTTP.request(port: port, method: "POST", path: "/v1/rooms", body: "", headers: ["Content-Length: 10000000"])
        #expect(s3 == 413)
        let (s3b, _) = try HTTP.request(port: port, method: "POST", path: "/v1/rooms", body: "1\r\n{\r\n", headers: ["Content-Length: 0", "Transfer-Encoding: chunked"])
        #expect(s3b == 411)
        let (s4, b4) = try HTTP.request(port: port, method: "GET", path: "/admin")
        #expect(s4 == 404 && b4.contains("no such resource"))
        let (s5, _) = try HTTP.request(port: port, method: "GET", path: "/v1/rooms")
        #expect(s5 == 405)
        let (s6, b6) = try HTTP.request(port: port, method: "GET", path: "/v1/health")
        #expect(s6 == 200 && b6.contains(#""status":"ok""#))
    }

    @Test func pinsNeverAppearInTheLog() throws {
        let server = try RendezvousProcess()
        let room = try server.createRoom()
        let socket = try joined(server, room: room)
        let wrong = try RawWebSocket(port: server.port, room: room.room)
        wrong.sendText(#"{"type":"join","room":"\#(room.room)","pin":"\#(room.pin == "111111" ? "222222" : "111111")","name":"w"}"#)
        _ = wrong.receiveJSON()
        socket.sendText(#"{"type":"leave"}"#)
        #expect(ConfProcess.waitUntil { server.process.stderr.contains("left room") })
        let log = server.process.stderr
        #expect(log.contains("room \(room.room) created"))
        #expect(!log.contains(room.pin) && !log.contains(room.listenPin) && !log.contains("111111") && !log.contains("222222"))
    }
}
