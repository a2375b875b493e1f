import Foundation
import Testing

/// Slow and numerous connections against a real `conf rendezvous` (issue 7, "Slowloris and
/// descriptors"): half-sent request headers must not exhaust its descriptors or stop it accepting.
@Suite(.serialized) struct SlowClientTests {
    /// 1,100 connections that send half a request header, from 30 loopback addresses (37 each,
    /// under the per-client cap, so the cap is not what saves the server).
    static let slowCount = 1_100
    static let addresses = 30

    init() { Self.raiseOwnDescriptorLimit() }

    /// With a soft limit of 1024 (the usual default), conf raises it to the hard limit at start
    /// and holds every slow connection until its request deadline, still serving others.
    @Test func slowHeadersUnderASoftLimitOf1024DoNotStopTheRendezvous() throws {
        let server = try RendezvousProcess(launcher: ["/usr/bin/prlimit", "--nofile=1024:\(Self.hardLimit)", "--"])
        #expect(Self.softLimit(of: server.process.pid) == Self.hardLimit)
        try survivesSlowClients(server)
    }

    /// With a hard limit of 1024 conf cannot raise it: it keeps descriptors in reserve, and a
    /// newcomer takes the place of the slow connection that has waited longest.
    @Test func slowHeadersUnderAHardLimitOf1024DoNotStopTheRendezvous() throws {
        let server = try RendezvousProcess(launcher: ["/usr/bin/prlimit", "--nofile=1024:1024", "--"])
        try survivesSlowClients(server)
        #expect(Self.openDescriptors(of: server.process.pid) < 1024)
    }

    /// The 65th connection from one address is refused with a 429 `too-many-connections`;
    /// another address is served meanwhile, and the first again once it closes one.
    @Test func aClientOverItsConnectionCapIsRefusedAndOthersAreServed() throws {
        // One worker: with several, each holds its share of the cap and the kernel decides which
        // worker a connection reaches, so the 65th is not exactly the one refused.
        let server = try RendezvousProcess(["--workers", "1"])
        var held = try (0..<64).map { _ in try SlowClient(from: 9, port: server.port) }
        let refused = try SlowClient.request(from: 9, port: server.port, path: "/v1/health")
        #expect(refused.status == 429, "\(refused)")
        #expect(refused.body.contains(#""code":"too-many-connections""#), "\(refused)")
        #expect(try SlowClient.request(from: 10, port: server.port, path: "/v1/health").status == 200)
        held.removeLast()
        #expect(ConfProcess.waitUntil { (try? SlowClient.request(from: 9, port: server.port, path: "/v1/health").status) == 200 })
        withExtendedLifetime(held) {}
    }

    /// Opens the slow connections, then a room and a join work while they are open; the server
    /// ends them after its request timeout (10 s); then a join works again.
    private func survivesSlowClients(_ server: RendezvousProcess) throws {
        var slow = try (0..<Self.slowCount).map { try SlowClient(from: UInt8(2 + $0 % Self.addresses), port: server.port) }
        try joinWorks(server, as: "ann")
        #expect(ConfProcess.waitUntil(timeout: .seconds(30)) { slow.allSatisfy { $0.closedByServer() } },
                "\(slow.filter { !$0.closedByServer() }.count) slow connections still open")
        slow.removeAll()
        try joinWorks(server, as: "bob")
        #expect(server.process.stderr.isEmpty || !server.process.stderr.contains("CRITICAL"), "\(server.process.stderr)")
    }

    private func joinWorks(_ server: RendezvousProcess, as name: String) throws {
        let room = try server.createRoom(name: "room-\(name)")
        let joiner = try ConfProcess(["join", room.room, room.pin, "--server", server.address, "--as", name, "--json"])
        #expect(joiner.waitForEvent("joined") != nil, "\(name): \(joiner.stderr)")
        joiner.signal(SIGTERM)
        _ = joiner.waitForExit()
    }

    // MARK: Descriptor limits

    static var hardLimit: UInt64 {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        return UInt64(limit.rlim_max)
    }

    /// The test holds 1,100 sockets itself.
    static func raiseOwnDescriptorLimit() {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }

    static func softLimit(of pid: Int32) -> UInt64? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Max open files") }) else { return nil }
        return line.split(separator: " ").dropFirst(3).first.flatMap { UInt64($0) }
    }

    static func openDescriptors(of pid: Int32) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? 0
    }
}

/// A TCP connection to 127.0.0.1 from 127.0.0.`host` that sends half a request header and then
/// nothing: a slow-header ("slowloris") client.
final class SlowClient {
    let fd: Int32

    init(from host: UInt8, port: UInt16, send text: String = "GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n") throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket: errno \(errno)") }
        var source = Self.address("127.0.0.\(host)", port: 0)
        var target = Self.address("127.0.0.1", port: port)
        let ok = withUnsafePointer(to: &source) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0 && withUnsafePointer(to: &target) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
        guard ok else {
            let code = errno
            close(fd)
            throw TestFailure("connect from 127.0.0.\(host) to port \(port) failed: errno \(code)")
        }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        _ = text.withCString { Glibc.send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
    }

    deinit { close(fd) }

    /// Whether the server ended the connection (end of stream or reset); does not wait.
    func closedByServer() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if n > 0 { continue }
            return n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)
        }
    }

    /// One complete GET from 127.0.0.`host`; the status and body of the answer.
    static func request(from host: UInt8, port: UInt16, path: String) throws -> (status: Int, body: String) {
        let client = try SlowClient(from: host, port: port, send: "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = recv(client.fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            response += buffer[..<n]
        }
        let text = String(decoding: response, as: UTF8.self)
        let status = text.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return (status, text.range(of: "\r\n\r\n").map { String(text[$0.upperBound...]) } ?? "")
    }

    private static func address(_ ip: String, port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr(ip)
        return address
    }
}
