import Foundation
import Testing

/// TURN over TLS (`?transport=tls`, `turns:`), which libnice cannot speak itself: conf carries
/// libnice's TURN-over-TCP connections through TLS to coturn. UDP into b is dropped
/// (Tests/Network/lossy-link.sh), so the call only works through the relay.
@Suite(.serialized, .enabled(if: NetworkNamespaces.available && FileManager.default.isExecutableFile(atPath: "/usr/bin/turnserver"),
                             "needs root, network namespaces and coturn (scripts/install-deps --test)"))
struct TURNOverTLSTests {
    final class Setting {
        let prefix = "tt\(getpid() % 10_000)"
        let directory: URL
        let certificate: String
        let turn = Process()

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("conf-turns-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let (cert, key) = try TLSTests.makeCertificate(in: directory, ip: "10.9.0.1")
            certificate = cert
            try LossTests.run(["up", prefix, "1"])
            turn.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
            turn.arguments = ["netns", "exec", "\(prefix)-a", "/usr/bin/turnserver", "-n", "--listening-ip=10.9.0.1", "--listening-port=3478",
                              "--tls-listening-port=5349", "--cert=\(cert)", "--pkey=\(key)", "--no-dtls", "--no-udp", "--no-tcp",
                              "--relay-ip=10.9.0.1", "--user=conf:secret", "--realm=conf.test", "--lt-cred-mech", "--no-cli",
                              "--min-port=20000", "--max-port=20200", "--log-file=stdout", "--pidfile=\(directory.path)/turn.pid"]
            turn.standardOutput = FileHandle.nullDevice
            turn.standardError = FileHandle.nullDevice
            try turn.run()
        }

        deinit {
            kill(turn.processIdentifier, SIGKILL)
            turn.waitUntilExit()
            try? LossTests.run(["down", prefix])
            try? FileManager.default.removeItem(at: directory)
        }

        /// ann hosts in a (UDP works there); bob joins from b with `flags`.
        func call(_ flags: [String]) throws -> (host: ConfProcess, guest: ConfProcess) {
            let host = try ConfProcess(["host", "--listen", "10.9.0.1:7373", "--as", "ann", "--json", "--say", "through tls"],
                                       namespace: "\(prefix)-a")
            let command = try #require(host.waitForEvent("room")?["join_command"] as? String).split(separator: " ").dropFirst().map(String.init)
            let guest = try ConfProcess(command + ["--as", "bob", "--json"] + flags, namespace: "\(prefix)-b")
            return (host, guest)
        }
    }

    @Test func aTURNServerOverTLSCarriesTheCallWhereUDPIsBlocked() throws {
        let setting = try Setting()
        let (host, guest) = try setting.call(["--turn", "conf:secret@10.9.0.1:5349?transport=tls", "--ca", setting.certificate])
        defer { host.signal(SIGKILL); guest.signal(SIGKILL) }
        let connected = guest.waitForEvent("peer-connected", timeout: .seconds(20))
        #expect(connected?["path"] as? String == "relay", "bob: \(guest.stdout)\n\(guest.stderr)")
        #expect(guest.waitForEvent("chat", timeout: .seconds(10))?["text"] as? String == "through tls", "\(guest.stdout)")
    }

    /// coturn's certificate is not one the system trusts: conf says so instead of trying in silence.
    @Test func anUntrustedTURNCertificateIsNamed() throws {
        let setting = try Setting()
        let (host, guest) = try setting.call(["--turn", "conf:secret@10.9.0.1:5349?transport=tls", "--connect-timeout", "4"])
        defer { host.signal(SIGKILL); guest.signal(SIGKILL) }
        #expect(guest.waitForExit(timeout: .seconds(20)) == 8, "\(guest.stderr)")
        #expect(guest.stderr.contains("TURN over TLS to 10.9.0.1:5349") && guest.stderr.lowercased().contains("certificate"), "\(guest.stderr)")
    }
}
