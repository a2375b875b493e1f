import Foundation
import Synchronization
import Testing

/// The rendezvous's STUN server under a flood, as an attacker would send it: from one source, and
/// from 256; a legitimate client meanwhile counts its answers (docs/SECURITY.md, "STUN"). On
/// loopback, each party from an address of its own in 127/8. The floods are kept to about
/// 10,000 requests a second, five times what the old shared bucket answered in all
/// (bench/stun_flood.py measures 20,000 and 60,000).
@Suite(.serialized) struct STUNFloodTests {
    /// A Binding request (RFC 8489 section 5) whose transaction id carries `number`.
    static func request(_ number: UInt32) -> [UInt8] {
        var bytes: [UInt8] = [0x00, 0x01, 0x00, 0x00, 0x21, 0x12, 0xA4, 0x42]
        bytes += [UInt8](repeating: 0xAB, count: 8)
        bytes += withUnsafeBytes(of: number.bigEndian) { Array($0) }
        return bytes
    }

    static func send(_ fd: Int32, _ bytes: [UInt8], to port: UInt16) {
        var destination = sockaddr_in()
        destination.sin_family = sa_family_t(AF_INET)
        destination.sin_addr.s_addr = inet_addr("127.0.0.1")
        destination.sin_port = port.bigEndian
        _ = withUnsafePointer(to: &destination) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(fd, bytes, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }

    /// Floods `port` from `sources` in turn, about `perSecond` requests a second, until stopped.
    final class Flood: @unchecked Sendable {
        private let stopped = Atomic(false)

        init(from sources: [UDPWatcher], port: UInt16, perSecond: Int) {
            let descriptors = sources.map(\.fd)
            Thread { [self] in
                var index = 0
                while !stopped.load(ordering: .relaxed) {
                    // A hundred, then a pause: the rate, paced.
                    for _ in 0..<100 {
                        STUNFloodTests.send(descriptors[index % descriptors.count], STUNFloodTests.request(UInt32(index)), to: port)
                        index += 1
                    }
                    usleep(UInt32(100 * 1_000_000 / perSecond))
                }
            }.start()
        }

        func stop() { stopped.store(true, ordering: .relaxed) }
    }

    /// `count` requests from `client`, one every 120 ms (an ICE agent asks less often: a source
    /// may ask 10 a second); the share answered (each answer read by its transaction id, up to
    /// 2 s after the last request).
    static func answeredShare(of client: UDPWatcher, port: UInt16, count: Int = 50) -> Double {
        var answered: Set<UInt32> = []
        func read() {
            var buffer = [UInt8](repeating: 0, count: 2048)
            while true {
                let n = recv(client.fd, &buffer, buffer.count, 0)
                guard n >= 20 else { return }
                if buffer[0] == 0x01 && buffer[1] == 0x01 {
                    answered.insert(buffer[16..<20].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
                }
            }
        }
        for number in 0..<count {
            send(client.fd, request(UInt32(1_000_000 + number)), to: port)
            usleep(120_000)
            read()
        }
        _ = ConfProcess.waitUntil(timeout: .seconds(2)) { read(); return answered.count == count }
        return Double(answered.count) / Double(count)
    }

    @Test func oneSourcesFloodLeavesAnotherSourceAnswered() throws {
        let server = try RendezvousProcess(["--workers", "1", "--quiet"])
        defer { server.process.signal(SIGTERM) }
        let flooder = try UDPWatcher(address: "127.0.0.2"), client = try UDPWatcher(address: "127.0.0.3")
        // Answered, alone.
        #expect(Self.answeredShare(of: client, port: server.port, count: 5) == 1)
        let flood = Flood(from: [flooder], port: server.port, perSecond: 10_000)
        let share = Self.answeredShare(of: client, port: server.port)
        flood.stop()
        #expect(share >= 0.95, "answered \(share * 100) % under the flood")
        // The flooder itself got its own budget's worth, not the server's.
        let flooded = flooder.drain()
        #expect(flooded > 0 && flooded < 150, "the flooder got \(flooded) answers")
    }

    @Test func aParticipantIsAnsweredUnderAFloodFrom256Sources() throws {
        let server = try RendezvousProcess(["--workers", "1", "--quiet"])
        defer { server.process.signal(SIGTERM) }
        let room = try server.createRoom()
        // A participant: its WebSocket open from the address it asks STUN from.
        let socket = try RawWebSocket(port: server.port, room: room.room, from: "127.0.0.4")
        socket.sendText(#"{"type":"join","room":"\#(room.room)","pin":"\#(room.pin)","name":"ann"}"#)
        #expect(socket.receiveJSON()?["type"] as? String == "joined")
        let participant = try UDPWatcher(address: "127.0.0.4")
        let sources = try (0..<256).map { try UDPWatcher(address: "127.0.1.\($0)") }
        // 256 sources at their own 10 a second are past what the server answers strangers in all.
        let flood = Flood(from: sources, port: server.port, perSecond: 10_000)
        let share = Self.answeredShare(of: participant, port: server.port)
        flood.stop()
        #expect(share >= 0.95, "answered \(share * 100) % under the flood")
        withExtendedLifetime((socket, sources)) {}
    }
}
