import Foundation
import Testing

/// The rendezvous's own WebSocket server (RFC 6455 on its epoll loop) against a hand-made client:
/// the opening handshake refused with a reason, control frames answered, fragments reassembled,
/// protocol breaches closed with the right code, and none of it disturbing a bystander.
@Suite struct RendezvousWebSocketTests {
    func response(to head: String, port: UInt16) throws -> (Int, String) {
        try HTTP.response(to: head, on: try TCPConnection(port: port))
    }

    @Test func anUpgradeMissingWhatRFC6455AsksIsRefusedWithAReason() throws {
        let server = try RendezvousProcess()
        let key = "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        let (plain, plainText) = try response(to: "GET /v1/ws HTTP/1.1\r\nHost: x\r\n\r\n", port: server.port)
        #expect(plain == 426 && plainText.contains("Sec-WebSocket-Version: 13") && plainText.contains(#""type":"error""#))
        let (version, _) = try response(to: "GET /v1/ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\(key)Sec-WebSocket-Version: 8\r\n\r\n", port: server.port)
        #expect(version == 426)
        let (noKey, _) = try response(to: "GET /v1/ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n\r\n", port: server.port)
        #expect(noKey == 400)
        let (longHead, _) = try response(to: "GET /v1/ws HTTP/1.1\r\nHost: x\r\nX-Pad: " + String(repeating: "a", count: 9_000) + "\r\n\r\n", port: server.port)
        #expect(longHead == 431)
    }

    @Test func theAcceptKeyIsRFC6455s() throws {
        let server = try RendezvousProcess()
        let connection = try TCPConnection(port: server.port)
        connection.write(Array(("GET /v1/ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: keep-alive, Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n").utf8))
        var head: [UInt8] = []
        while !head.ends(with: Array("\r\n\r\n".utf8)), let byte = connection.readExactly(1) { head += byte }
        let text = String(decoding: head, as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 101 "))
        #expect(text.contains("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"))  // RFC 6455 section 1.3's example
    }

    @Test func pingsAreAnsweredAndACloseIsEchoed() throws {
        let server = try RendezvousProcess()
        let socket = try RawWebSocket(port: server.port)
        socket.sendFrame(opcode: 0x9, payload: Array("hi".utf8))
        #expect(socket.receive() == .other(0xA))
        socket.sendFrame(opcode: 0x8, payload: [0x03, 0xE8])  // 1000
        #expect(socket.receive() == .close(1000))
        #expect(socket.receive() == nil && socket.connection.peerEnded)
    }

    @Test func aFragmentedMessageIsReassembledAroundAControlFrame() throws {
        let server = try RendezvousProcess()
        let socket = try RawWebSocket(port: server.port)
        socket.sendFrame(opcode: 0x1, payload: Array(#"{"type":"#.utf8), fin: false)
        socket.sendFrame(opcode: 0x9, payload: [])
        socket.sendFrame(opcode: 0x0, payload: Array(#""ping"}"#.utf8))
        #expect(socket.receive() == .other(0xA))
        #expect(socket.receiveJSON()?["type"] as? String == "pong")
    }

    @Test func breachesOfTheFramingCloseWithTheirCode() throws {
        let server = try RendezvousProcess()
        let bystander = try HostileInputTests.Bystander(server)
        let unmasked = try RawWebSocket(port: server.port)
        unmasked.connection.write([0x81, 0x02] + Array("{}".utf8))
        #expect(unmasked.receiveClose() == 1002)
        let invalid = try RawWebSocket(port: server.port)
        invalid.sendFrame(opcode: 0x1, payload: [0x7B, 0xC3, 0x28, 0x7D])
        #expect(invalid.receiveClose() == 1007)
        let stray = try RawWebSocket(port: server.port)
        stray.sendFrame(opcode: 0x0, payload: Array("x".utf8))
        #expect(stray.receiveClose() == 1002)
        #expect(bystander.stillServed())
        // Counted for the operator, summed over the workers (each posts its figures every second).
        #expect(ConfProcess.waitUntil { (try? Self.drops("framing", port: server.port)) == 3 })
    }

    /// conf_rendezvous_websocket_drops_total for `reason`, summed over every worker's line.
    static func drops(_ reason: String, port: UInt16) throws -> Int {
        let page = try HTTP.request(port: port, method: "GET", path: "/v1/metrics").1
        return page.split(separator: "\n").filter { $0.hasPrefix("conf_rendezvous_websocket_drops_total{") && $0.contains("reason=\"\(reason)\"") }
            .compactMap { $0.split(separator: " ").last.flatMap { Int($0) } }.reduce(0, +)
    }

    /// A frame too long is refused from its header while the client is still sending it: the
    /// client still reads the 1009 (our side is shut with a FIN and the rest is drained, where
    /// closing with its bytes unread would send a reset that can destroy the Close frame).
    @Test func aClientStillSendingReadsWhyItWasClosed() throws {
        let server = try RendezvousProcess()
        let socket = try RawWebSocket(port: server.port)
        socket.sendFrame(opcode: 0x1, payload: Array(repeating: UInt8(ascii: "a"), count: 200_000))
        #expect(socket.receiveClose() == 1009)
    }

    /// Pings sent faster than they are read are answered only while nothing waits to be written,
    /// and the flood neither grows the server nor keeps it from others.
    @Test func aPingFloodThatNeverReadsStarvesNoOne() throws {
        let server = try RendezvousProcess()
        let bystander = try HostileInputTests.Bystander(server)
        let flooder = try RawWebSocket(port: server.port)
        for _ in 0..<20_000 { flooder.sendFrame(opcode: 0x9, payload: Array(repeating: 0x70, count: 100)) }
        #expect(bystander.stillServed())
        #expect(ConfProcess.residentMiB(of: server.process.pid).map { $0 < 100 } ?? false)
    }

    /// Connections that send half a request line and wait are watched for more bytes, not polled
    /// without end: the server stays idle while they wait (a level-triggered watch on a socket
    /// that is only peeked at woke the loop continuously).
    @Test func halfSentRequestLinesLeaveTheServerIdle() throws {
        let server = try RendezvousProcess(["--workers", "1"])
        let waiting = try (0..<20).map { _ in try TCPConnection(port: server.port) }
        for connection in waiting { connection.write(Array("GET /v1/ws?room=".utf8)) }
        let before = ConfProcess.cpuSeconds(of: server.process.pid)
        Thread.sleep(forTimeInterval: 2)  // measuring an interval: nothing to wait for
        let used = ConfProcess.cpuSeconds(of: server.process.pid).flatMap { after in before.map { after - $0 } }
        #expect(used.map { $0 < 0.5 } ?? false, "server CPU over 2 s: \(String(describing: used))")
        withExtendedLifetime(waiting) {}
    }

    /// A participant that never reads what is relayed to it is dropped once about 1 MiB waits
    /// for it beyond what the kernel holds: the operator sees a `slow-reader` drop, the server
    /// does not grow with its backlog, and the sender goes on being served.
    @Test func aParticipantThatNeverReadsIsDroppedNotBufferedFor() throws {
        let server = try RendezvousProcess(["--workers", "1"])
        let room = try server.createRoom()
        func join(_ name: String) throws -> (RawWebSocket, String) {
            let socket = try RawWebSocket(port: server.port, room: room.room)
            socket.sendText(#"{"type":"join","room":"\#(room.room)","pin":"\#(room.pin)","name":"\#(name)"}"#)
            guard let joined = socket.receiveJSON(), joined["type"] as? String == "joined", let you = joined["you"] as? String
            else { throw TestFailure("\(name) could not join") }
            return (socket, you)
        }
        let (ann, _) = try join("ann")
        let (sleeper, sleeperID) = try join("bob")
        let payload = String(repeating: "x", count: 30_000)
        let start = ContinuousClock.now
        var sent = 0
        // Within the flood allowance: a burst of 150, then 40 a second.
        while (try? Self.drops("slow-reader", port: server.port)) != 1, ContinuousClock.now - start < .seconds(30) {
            let allowed = 150 + Int((ContinuousClock.now - start).components.seconds) * 40
            if sent < allowed {
                ann.sendText(#"{"type":"signal","to":"\#(sleeperID)","payload":{"sdp":"\#(payload)"}}"#)
                sent += 1
            } else {
                usleep(20_000)
            }
        }
        #expect((try? Self.drops("slow-reader", port: server.port)) == 1, "after \(sent) signals of 30 kB")
        #expect(ConfProcess.residentMiB(of: server.process.pid).map { $0 < 100 } ?? false)
        // Its seat is away now (the resume grace); the sender is still served.
        ann.sendText(#"{"type":"ping"}"#)
        var pong = false
        while let message = ann.receiveJSON() { if message["type"] as? String == "pong" { pong = true; break } }
        #expect(pong)
        withExtendedLifetime(sleeper) {}
    }
}
