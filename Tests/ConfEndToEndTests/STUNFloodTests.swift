import Foundation
import Synchronization
import Testing

/// The rendezvous's STUN server under a flood, as an attacker would send it: from one source, and
/// from 2,048; a legitimate client meanwhile counts its answers (docs/SECURITY.md, "STUN"). On
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

    /// Datagrams the kernel dropped on their way in: at the UDP sockets bound to local `port` (the
    /// last column of /proc/net/udp and udp6: a queue that overflowed while the server did not
    /// run) and in the input backlogs (the second column of /proc/net/softnet_stat). No answering
    /// policy can answer those; the share below leaves them out.
    static func kernelDrops(port: UInt16) -> Int {
        // Read to the end: a /proc file's size is 0, which String(contentsOfFile:) believes.
        func lines(_ path: String) -> [Substring] {
            let text = FileHandle(forReadingAtPath: path).map { String(decoding: $0.readDataToEndOfFile(), as: UTF8.self) } ?? ""
            return text.split(separator: "\n")
        }
        let suffix = ":" + String(format: "%04X", port)
        let atSocket = (lines("/proc/net/udp").dropFirst() + lines("/proc/net/udp6").dropFirst()).reduce(0) { sum, line in
            let fields = line.split(separator: " ")
            guard fields.count > 2, fields[1].hasSuffix(suffix), let drops = fields.last.flatMap({ Int($0) }) else { return sum }
            return sum + drops
        }
        let inBacklogs = lines("/proc/net/softnet_stat").reduce(0) { sum, line in
            let fields = line.split(separator: " ")
            return sum + (fields.count > 1 ? Int(fields[1], radix: 16) ?? 0 : 0)
        }
        return atSocket + inBacklogs
    }

    /// Floods `port` from `sources` (IPv4 addresses of 127/8) in turn, about `perSecond` requests
    /// a second, until stopped, and counts the answers. One socket bound to the wildcard sends
    /// them all, each with its source address in an `IP_PKTINFO` control message (as a forger
    /// would), and takes every answer back whatever address it went to.
    final class Flood: @unchecked Sendable {
        private let stopped = Atomic(false)
        private let answerCount = Atomic(0)
        private let socket: UDPWatcher
        var answers: Int { answerCount.load(ordering: .relaxed) }

        init(from sources: [String], port: UInt16, perSecond: Int) throws {
            socket = try UDPWatcher(address: "0.0.0.0")
            var queue: Int32 = 4 << 20
            setsockopt(socket.fd, SOL_SOCKET, SO_RCVBUF, &queue, socklen_t(MemoryLayout<Int32>.size))
            let addresses = sources.map { in_addr(s_addr: inet_addr($0)) }
            Thread { [self] in
                var index = 0
                while !stopped.load(ordering: .relaxed) {
                    // Ten, then a pause: the rate, paced evenly enough that the server's tokens
                    // do not pile up between bursts for the client to take.
                    for _ in 0..<10 {
                        Flood.send(socket.fd, STUNFloodTests.request(UInt32(index)), from: addresses[index % addresses.count], to: port)
                        index += 1
                    }
                    if index % 1_000 == 0 { answerCount.add(socket.drain(), ordering: .relaxed) }
                    usleep(UInt32(10 * 1_000_000 / perSecond))
                }
            }.start()
        }

        func stop() {
            stopped.store(true, ordering: .relaxed)
            answerCount.add(socket.drain(), ordering: .relaxed)
        }

        /// sendmsg with `struct in_pktinfo` (ifindex, source, unused) after a `cmsghdr` (length,
        /// level, type): 16 + 16 bytes, as CMSG_SPACE(12) is on 64-bit Linux.
        static func send(_ fd: Int32, _ bytes: [UInt8], from source: in_addr, to port: UInt16) {
            var destination = sockaddr_in()
            destination.sin_family = sa_family_t(AF_INET)
            destination.sin_addr.s_addr = inet_addr("127.0.0.1")
            destination.sin_port = port.bigEndian
            var control = [UInt8](repeating: 0, count: 32)
            control.withUnsafeMutableBytes { raw in
                raw.storeBytes(of: 28, toByteOffset: 0, as: Int.self)  // CMSG_LEN(12)
                raw.storeBytes(of: Int32(IPPROTO_IP), toByteOffset: 8, as: Int32.self)
                raw.storeBytes(of: Int32(IP_PKTINFO), toByteOffset: 12, as: Int32.self)
                raw.storeBytes(of: source.s_addr, toByteOffset: 20, as: UInt32.self)
            }
            var payload = bytes
            payload.withUnsafeMutableBytes { payloadBytes in
                control.withUnsafeMutableBytes { controlBytes in
                    withUnsafeMutablePointer(to: &destination) { name in
                        var vector = iovec(iov_base: payloadBytes.baseAddress, iov_len: payloadBytes.count)
                        withUnsafeMutablePointer(to: &vector) { vectorPointer in
                            var message = msghdr(msg_name: UnsafeMutableRawPointer(name), msg_namelen: socklen_t(MemoryLayout<sockaddr_in>.size),
                                                 msg_iov: vectorPointer, msg_iovlen: 1,
                                                 msg_control: controlBytes.baseAddress, msg_controllen: controlBytes.count, msg_flags: 0)
                            _ = sendmsg(fd, &message, 0)
                        }
                    }
                }
            }
        }
    }

    /// What a client measured: of the requests the server's socket took, how many were answered.
    struct Share: CustomStringConvertible {
        var judged = 0, answered = 0, notJudged = 0
        var value: Double { judged == 0 ? 0 : Double(answered) / Double(judged) }
        var description: String {
            "\(answered) of \(judged) answered (\(Int(value * 100)) %); \(notJudged) more sent while the kernel dropped requests on their way in, not judged"
        }
    }

    /// Requests from `client`, one every 120 ms (an ICE agent asks less often: a source may ask 10
    /// a second), until `count` are judged: a request sent while the kernel dropped datagrams on
    /// their way to the server (its queue full because the server did not run: a busy machine, not
    /// the server's policy) is not judged, as it may never have reached the server. Each answer is
    /// read by its transaction id, up to 2 s after the last request.
    static func answeredShare(of client: UDPWatcher, port: UInt16, count: Int = 50) -> Share {
        var answered: Set<UInt32> = [], judged: [UInt32] = [], notJudged = 0
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
        // A drop is seen in the interval after the request's too (delivery on loopback may wait
        // for the kernel's deferred work): a request is judged when neither saw one.
        var drops = kernelDrops(port: port), pending: (number: UInt32, dropped: Bool)?
        var number = UInt32(1_000_000)
        while judged.count < count, number < 1_000_000 + UInt32(count * 4) {
            send(client.fd, request(number), to: port)
            usleep(120_000)
            read()
            let now = kernelDrops(port: port), dropped = now > drops
            drops = now
            if let last = pending {
                if last.dropped || dropped { notJudged += 1 } else { judged.append(last.number) }
            }
            pending = (number, dropped)
            number += 1
        }
        _ = ConfProcess.waitUntil(timeout: .seconds(2)) { read(); return judged.allSatisfy(answered.contains) }
        return Share(judged: judged.count, answered: judged.filter(answered.contains).count, notJudged: notJudged)
    }

    @Test func oneSourcesFloodLeavesAnotherSourceAnswered() throws {
        let server = try RendezvousProcess(["--workers", "1", "--quiet"])
        defer { server.process.signal(SIGTERM) }
        let client = try UDPWatcher(address: "127.0.0.3")
        // Answered, alone.
        let alone = Self.answeredShare(of: client, port: server.port, count: 5)
        #expect(alone.judged == 5 && alone.value == 1, "\(alone)")
        let flood = try Flood(from: ["127.0.0.2"], port: server.port, perSecond: 10_000)
        let share = Self.answeredShare(of: client, port: server.port)
        flood.stop()
        #expect(share.judged == 50 && share.value >= 0.95, "under the flood: \(share)")
        // The flooder itself got its own budget's worth, not the server's.
        #expect(flood.answers > 0 && flood.answers < 150, "the flooder got \(flood.answers) answers")
    }

    @Test func aParticipantIsAnsweredUnderAFloodFromThousandsOfSources() throws {
        let server = try RendezvousProcess(["--workers", "1", "--quiet"])
        defer { server.process.signal(SIGTERM) }
        let room = try server.createRoom()
        // A participant: its WebSocket open from the address it asks STUN from.
        let socket = try RawWebSocket(port: server.port, room: room.room, from: "127.0.0.4")
        socket.sendText(#"{"type":"join","room":"\#(room.room)","pin":"\#(room.pin)","name":"ann"}"#)
        #expect(socket.receiveJSON()?["type"] as? String == "joined")
        let participant = try UDPWatcher(address: "127.0.0.4")
        // 2,048 sources at 5 a second each: every request within its source's own budget, and
        // together five times what the server answers strangers in all.
        let sources = (0..<2_048).map { "127.1.\($0 / 256).\($0 % 256)" }
        let flood = try Flood(from: sources, port: server.port, perSecond: 10_000)
        let started = ContinuousClock.now
        let share = Self.answeredShare(of: participant, port: server.port)
        flood.stop()
        let elapsed = ContinuousClock.now - started
        let strangersAnswered = Double(flood.answers) / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        // The flood did take the strangers' share (else the participant's answers prove nothing).
        #expect(strangersAnswered > 1_000, "the flood got \(Int(strangersAnswered)) answers a second")
        #expect(share.judged == 50 && share.value >= 0.95, "under the flood: \(share)")
        withExtendedLifetime(socket) {}
    }
}
