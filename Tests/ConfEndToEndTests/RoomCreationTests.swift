import Foundation
import Testing

/// Who may make rooms and read the figures, tried against real processes: a stranger posting to
/// a host's own rendezvous, a `conf host` without the standing rendezvous's key, a reader of
/// `/v1/metrics` from outside (docs/SECURITY.md, "Who may make rooms").
@Suite struct RoomCreationTests {
    static func temporaryDirectory(_ name: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("conf-\(name)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return url
    }

    @Test func aHostsRendezvousMakesNoRoomButItsHosts() throws {
        let (host, _, _, _, server) = try CallGoesOnTests.host(["--no-audio", "--no-video"])
        let port = try #require(UInt16(server.split(separator: ":").last!))
        let (status, body) = try HTTP.request(port: port, method: "POST", path: "/v1/rooms", body: #"{"name":"squatter"}"#)
        #expect(status == 403 && body.contains("forbidden") && body.contains("conf host"), "\(status) \(body)")
        // Nor for a conf host pointed at it.
        let other = try ConfProcess(["host", "--server", server, "--no-audio", "--no-video", "--json"])
        #expect(other.waitForExit(timeout: .seconds(10)) == 12, "\(other.stdout) \(other.stderr)")
        #expect(other.events(ofType: "error").first?["code"] as? String == "forbidden", "\(other.stdout)")
        host.signal(SIGTERM)
        #expect(host.waitForExit() == 0)
    }

    @Test func aStandingRendezvousWithAKeyMakesRoomsOnlyForIt() throws {
        let directory = try Self.temporaryDirectory("room-key")
        defer { try? FileManager.default.removeItem(at: directory) }
        let keyFile = directory.appendingPathComponent("room-key").path
        let server = try RendezvousProcess(["--room-key-file", keyFile])
        defer { server.process.signal(SIGTERM) }
        // Made on first start, private, and said so.
        let key = try String(contentsOfFile: keyFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(key.count == 32)
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: keyFile)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
        #expect(!server.process.stderr.contains("anyone who reaches"), "\(server.process.stderr)")

        let keyless = try ConfProcess(["host", "--server", server.address, "--no-audio", "--no-video", "--json"])
        #expect(keyless.waitForExit() == 12, "\(keyless.stdout) \(keyless.stderr)")
        let refusal = try #require(keyless.events(ofType: "error").first)
        #expect(refusal["code"] as? String == "forbidden" && (refusal["message"] as? String)?.contains("room-key") == true, "\(refusal)")
        let wrong = try ConfProcess(["host", "--server", server.address, "--no-audio", "--no-video", "--json"],
                                    environment: ["CONF_ROOM_KEY": String(key.reversed())])
        #expect(wrong.waitForExit() == 12, "\(wrong.stdout) \(wrong.stderr)")

        let keyed = try ConfProcess(["host", "--server", server.address, "--no-audio", "--no-video", "--json"],
                                    environment: ["CONF_ROOM_KEY": key])
        #expect(keyed.waitForEvent("room") != nil, "\(keyed.stdout) \(keyed.stderr)")
        keyed.signal(SIGTERM)
        #expect(keyed.waitForExit() == 0)
        // A raw client with the key, and one with a key of the same length but not it.
        let headers = { (presented: String) in ["Authorization: Bearer \(presented)"] }
        #expect(try HTTP.request(port: server.port, method: "POST", path: "/v1/rooms", body: #"{"name":"raw"}"#, headers: headers(key)).0 == 201)
        let guess = String(key.dropLast()) + (key.last == "A" ? "B" : "A")
        #expect(try HTTP.request(port: server.port, method: "POST", path: "/v1/rooms", body: #"{"name":"raw"}"#, headers: headers(guess)).0 == 403)

        // The same file again: the same key, not a new one.
        let again = try RendezvousProcess(["--room-key-file", keyFile])
        again.process.signal(SIGTERM)
        #expect(try String(contentsOfFile: keyFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines) == key)
    }

    @Test func aRendezvousWithoutAKeySaysAnyoneCanOpenRooms() throws {
        let server = try RendezvousProcess()
        defer { server.process.signal(SIGTERM) }
        #expect(ConfProcess.waitUntil(timeout: .seconds(5)) { server.process.stderr.contains("anyone who reaches this rendezvous can open rooms") },
                "\(server.process.stderr)")
    }

    @Test func aKeyFileOthersMayReadIsRefused() throws {
        let directory = try Self.temporaryDirectory("room-key-open")
        defer { try? FileManager.default.removeItem(at: directory) }
        let keyFile = directory.appendingPathComponent("room-key")
        try "k3y-of-the-operator-0123\n".write(to: keyFile, atomically: false, encoding: .utf8)
        chmod(keyFile.path, 0o644)
        let server = try ConfProcess(["rendezvous", "--listen", "127.0.0.1:0", "--room-key-file", keyFile.path])
        #expect(server.waitForExit() == 1)
        #expect(server.stderr.contains("chmod 600"), "\(server.stderr)")
    }

    @Test func metricsAreReadFromThisMachineOrTheNetworksNamed() throws {
        // Behind a load balancer on 127.0.0.1 (--trusted-proxy), the client is what it forwards.
        let server = try RendezvousProcess(["--trusted-proxy", "127.0.0.1", "--metrics-from", "198.51.100.0/24"])
        defer { server.process.signal(SIGTERM) }
        #expect(try HTTP.request(port: server.port, method: "GET", path: "/v1/metrics").0 == 200)
        let outside = try HTTP.request(port: server.port, method: "GET", path: "/v1/metrics", headers: ["X-Forwarded-For: 203.0.113.9"])
        #expect(outside.0 == 403 && outside.1.contains("forbidden") && !outside.1.contains("conf_rendezvous"), "\(outside)")
        let named = try HTTP.request(port: server.port, method: "GET", path: "/v1/metrics", headers: ["X-Forwarded-For: 198.51.100.20"])
        #expect(named.0 == 200 && named.1.contains("conf_"), "\(named)")
        let bad = try ConfProcess(["rendezvous", "--listen", "127.0.0.1:0", "--metrics-from", "10.0.0.0/40"])
        #expect(bad.waitForExit() == 2 && bad.stderr.contains("--metrics-from"), "\(bad.stderr)")
    }
}
