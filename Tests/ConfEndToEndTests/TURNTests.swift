import Foundation
import Testing

/// A real TURN server (coturn) on 127.0.0.1: links forced through it with --relay-only, with the
/// server given on the command line or handed out by the rendezvous.
@Suite struct TURNTests {
    /// A UDP port free right now (bound, read, released).
    static func freeUDPPort() -> UInt16 { freePort(SOCK_DGRAM) }

    final class Coturn {
        let process = Process()
        let port = TURNTests.freeUDPPort()
        init() throws {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/turnserver")
            // Relay ports below the kernel's ephemeral range, so they cannot be the listening port.
            let relay = 20_000 + Int(port % 10_000)
            process.arguments = ["-n", "--listening-ip=127.0.0.1", "--listening-port=\(port)", "--relay-ip=127.0.0.1",
                                 "--user=conf:secret", "--realm=conf.test", "--lt-cred-mech", "--allow-loopback-peers",
                                 "--no-tls", "--no-dtls", "--no-cli", "--min-port=\(relay)", "--max-port=\(relay + 200)",
                                 "--log-file=stdout", "--pidfile=/tmp/conf-turn-\(port).pid"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
        }
        // SIGKILL: processes started by the test runner inherit its blocked SIGTERM.
        deinit {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    @Test func relayOnlyLinksGoThroughTheTURNServer() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/turnserver") else {
            Issue.record("coturn is missing: run scripts/install-deps --test")
            return
        }
        let turn = try Coturn()
        let server = try RendezvousProcess()
        let room = try server.createRoom()
        let flags = ["--turn", "conf:secret@127.0.0.1:\(turn.port)", "--relay-only", "--json"]
        let a = try ConfProcess(["join", room.room, room.pin, "--server", server.address, "--as", "ann"] + flags)
        let b = try ConfProcess(["join", room.room, room.pin, "--server", server.address, "--as", "bob"] + flags + ["--say", "via relay"])
        for p in [a, b] {
            let connected = p.waitForEvent("peer-connected", timeout: .seconds(15))
            #expect(connected?["path"] as? String == "relay", "\(p.stdout)")
        }
        #expect(a.waitForEvent("chat", timeout: .seconds(5))?["text"] as? String == "via relay")
        a.signal(SIGTERM)
        b.signal(SIGTERM)
        #expect(a.waitForExit() == 0 && b.waitForExit() == 0)
    }

    @Test func anEmbeddedRendezvousHandsOutTheHostsTURNServer() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/turnserver") else {
            Issue.record("coturn is missing: run scripts/install-deps --test")
            return
        }
        let turn = try Coturn()
        let host = try ConfProcess(["host", "--listen", "127.0.0.1:0", "--as", "ann", "--json", "--relay-only",
                                    "--turn", "conf:secret@127.0.0.1:\(turn.port)"])
        let command = try #require(host.waitForEvent("room")?["join_command"] as? String).split(separator: " ").dropFirst().map(String.init)
        let guest = try ConfProcess(command + ["--as", "bob", "--json", "--relay-only"])  // no --turn of its own
        #expect(guest.waitForEvent("peer-connected", timeout: .seconds(15))?["path"] as? String == "relay", "\(guest.stdout)")
        host.signal(SIGTERM)
        #expect(host.waitForExit() == 0 && guest.waitForExit() == 0)
    }

    @Test func theRendezvousHandsOutTheTURNServer() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/turnserver") else {
            Issue.record("coturn is missing: run scripts/install-deps --test")
            return
        }
        let turn = try Coturn()
        let server = try RendezvousProcess(["--turn", "conf:secret@127.0.0.1:\(turn.port)"])
        let room = try server.createRoom()
        let a = try ConfProcess(["join", room.room, room.pin, "--server", server.address, "--as", "ann", "--relay-only", "--json"])
        let joined = a.waitForEvent("joined")
        #expect(joined != nil)
        let b = try ConfProcess(["join", room.room, room.pin, "--server", server.address, "--as", "bob", "--relay-only", "--json"])
        #expect(b.waitForEvent("peer-connected", timeout: .seconds(15))?["path"] as? String == "relay", "\(b.stdout)")
        // Without any TURN server, --relay-only is refused with the reason.
        let plain = try RendezvousProcess()
        let other = try plain.createRoom()
        let lonely = try ConfProcess(["join", other.room, other.pin, "--server", plain.address, "--relay-only"])
        #expect(lonely.waitForExit() == 2)
        #expect(lonely.stderr.contains("needs a TURN server"))
        a.signal(SIGTERM)
        b.signal(SIGTERM)
        #expect(a.waitForExit() == 0 && b.waitForExit() == 0)
    }
}
