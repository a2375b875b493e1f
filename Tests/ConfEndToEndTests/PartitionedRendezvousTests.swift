import Foundation
import Testing

/// Rooms split across three `conf rendezvous --instance K/3` behind HAProxy with the shipped
/// configuration (deploy/haproxy.cfg): creation lands on every instance, four `conf join`s per
/// room meet through the balancer, and a killed instance takes only its own rooms.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/sbin/haproxy"), "needs haproxy (scripts/install-deps --test)"))
struct PartitionedRendezvousTests {
    static let shippedConfig = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("deploy/haproxy.cfg")

    /// HAProxy with deploy/haproxy.cfg, its addresses replaced by `instances` and a free port.
    final class Balancer {
        let process = Process()
        let port: UInt16
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("conf-haproxy-\(UUID().uuidString.prefix(8)).cfg")

        init(instances: [String]) throws {
            port = freePort()
            var text = try String(contentsOf: PartitionedRendezvousTests.shippedConfig, encoding: .utf8)
            for (index, address) in instances.enumerated() { text = text.replacingOccurrences(of: "127.0.0.1:740\(index + 1)", with: address) }
            text = text.replacingOccurrences(of: "bind :7373", with: "bind 127.0.0.1:\(port)")
            try text.write(to: config, atomically: true, encoding: .utf8)
            process.executableURL = URL(fileURLWithPath: "/usr/sbin/haproxy")
            process.arguments = ["-db", "-f", config.path]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            guard ConfProcess.waitUntil(timeout: .seconds(10), { (try? HTTP.request(port: self.port, method: "GET", path: "/v1/health").0) == 200 }) else {
                throw TestFailure("haproxy did not answer on \(port)")
            }
        }

        deinit {
            process.terminate()
            process.waitUntilExit()
            try? FileManager.default.removeItem(at: config)
        }
    }

    private func createRoom(through port: UInt16) throws -> (room: String, pin: String) {
        let (status, body) = try HTTP.request(port: port, method: "POST", path: "/v1/rooms", body: #"{"name":"split"}"#)
        guard status == 201, let json = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
              let room = json["room"] as? String, let pin = json["pin"] as? String
        else { throw TestFailure("room creation through haproxy failed: \(status) \(body)") }
        return (room, pin)
    }

    @Test func roomsSpreadMeetThroughTheBalancerAndDieOnlyWithTheirInstance() throws {
        let instances = try (0..<3).map { try RendezvousProcess(["--instance", "\($0)/3", "--trusted-proxy", "127.0.0.1"]) }
        let balancer = try Balancer(instances: instances.map(\.endpoint))
        // Round robin: rooms on every instance, each id starting with its instance's index.
        let rooms = try (0..<6).map { _ in try createRoom(through: balancer.port) }
        #expect(Set(rooms.map { $0.room.prefix(1) }) == ["0", "1", "2"], "\(rooms.map(\.room))")
        // A join sent straight to the wrong instance says where the room is.
        let stray = rooms.first { $0.room.hasPrefix("1") }!
        let lost = try ConfProcess(["join", stray.room, stray.pin, "--server", instances[0].address, "--json"])
        #expect(lost.waitForExit(timeout: .seconds(10)) == 5)
        #expect(lost.events(ofType: "error").first?["code"] as? String == "wrong-instance", "\(lost.stdout)")

        // Four participants in each of two rooms on different instances, all through the balancer.
        let doomed = rooms.first { $0.room.hasPrefix("0") }!, kept = rooms.first { $0.room.hasPrefix("2") }!
        let server = "ws://127.0.0.1:\(balancer.port)"
        var calls: [String: [ConfProcess]] = [:]
        for room in [doomed, kept] {
            calls[room.room] = try ["ann", "bob", "cy", "dee"].map { name in
                try ConfProcess(["join", room.room, room.pin, "--server", server, "--as", name, "--json", "--no-sounds"])
            }
        }
        for (room, participants) in calls {
            for participant in participants {
                #expect(ConfProcess.waitUntil(timeout: .seconds(30)) { participant.events(ofType: "peer-connected").count >= 3 },
                        "room \(room): \(participant.stdout)")
            }
        }
        // Metrics are the operator's: refused at the balancer, served by each instance.
        #expect(try HTTP.request(port: balancer.port, method: "GET", path: "/v1/metrics").0 == 403)
        // Each instance runs a worker per core: its joins are the sum over them.
        // (The other workers' figures are at most a second old.)
        var metrics = ""
        let counted = ConfProcess.waitUntil(timeout: .seconds(5)) {
            metrics = (try? HTTP.request(port: instances[2].port, method: "GET", path: "/v1/metrics").1) ?? ""
            let joins = metrics.split(separator: "\n").filter { $0.hasPrefix("conf_rendezvous_joins_total{instance=\"2\",worker=") }
            return !joins.isEmpty && joins.compactMap { $0.split(separator: " ").last.flatMap { Int($0) } }.reduce(0, +) == 4
        }
        #expect(counted, "\(metrics)")

        // Instance 0 dies: its room's participants lose the rendezvous (their calls go on peer to
        // peer); the other room's do not, and the balancer still makes rooms on the others.
        instances[0].process.signal(SIGKILL)
        for participant in calls[doomed.room]! {
            #expect(participant.waitForEvent("rendezvous-lost", timeout: .seconds(20)) != nil, "\(participant.stdout)")
        }
        let after = try (0..<4).map { _ in try createRoom(through: balancer.port) }
        #expect(after.allSatisfy { !$0.room.hasPrefix("0") }, "\(after.map(\.room))")
        for participant in calls[kept.room]! {
            #expect(participant.events(ofType: "rendezvous-lost").isEmpty && participant.events(ofType: "peer-disconnected").isEmpty,
                    "\(participant.stdout)")
        }
        for participant in calls.values.joined() { participant.signal(SIGTERM) }
        for participant in calls.values.joined() { #expect(participant.waitForExit(timeout: .seconds(10)) != nil) }
        withExtendedLifetime(instances) {}
    }
}

/// A port on 127.0.0.1 free right now (bound to port 0, read, released): TCP, or UDP with SOCK_DGRAM.
func freePort(_ type: __socket_type = SOCK_STREAM) -> UInt16 {
    let fd = socket(AF_INET, Int32(type.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
            bind(fd, pointer, length)
            return getsockname(fd, pointer, &length)
        }
    }
    return UInt16(bigEndian: address.sin_port)
}
