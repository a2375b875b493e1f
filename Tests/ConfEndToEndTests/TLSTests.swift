import Foundation
import Testing

/// `conf rendezvous --tls-cert/--tls-key` and clients on wss:// with a self-signed certificate.
@Suite struct TLSTests {
    /// A self-signed P-256 certificate for `ip` (127.0.0.1 unless told; a host name when it has
    /// letters), made with the openssl command.
    static func makeCertificate(in dir: URL, ip: String = "127.0.0.1") throws -> (cert: String, key: String) {
        let kind = ip.contains(where: \.isLetter) && !ip.contains(":") ? "DNS" : "IP"
        let cert = dir.appendingPathComponent("cert.pem").path, key = dir.appendingPathComponent("key.pem").path
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        p.arguments = ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key,
                       "-out", cert, "-days", "2", "-subj", "/CN=\(ip)", "-addext", "subjectAltName=\(kind):\(ip)"]
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw TestFailure("openssl failed") }
        return (cert, key)
    }

    /// A `conf rendezvous` over TLS with a fresh self-signed certificate; its wss:// address.
    static func startTLSRendezvous(in dir: URL) throws -> (cert: String, key: String, server: ConfProcess, address: String) {
        let (cert, key) = try makeCertificate(in: dir)
        let server = try ConfProcess(["rendezvous", "--listen", "127.0.0.1:0", "--tls-cert", cert, "--tls-key", key])
        guard let line = server.waitForOutput(containing: "listening on https://") else {
            throw TestFailure("conf rendezvous did not start over TLS: \(server.stderr)")
        }
        return (cert, key, server, "wss://" + line.split(separator: "/").last!)
    }

    @Test func secureRendezvousWithATrustedCertificate() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("conf-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let (cert, _, server, address) = try Self.startTLSRendezvous(in: dir)
        defer { withExtendedLifetime(server) {} }

        let trusted = try ConfProcess(["host", "--server", address, "--ca", cert, "--json", "--duration", "0.5"])
        #expect(trusted.waitForExit() == 0, "\(trusted.stderr)")
        #expect(trusted.events(ofType: "joined").count == 1)
        // The join command carries the --ca others need too.
        #expect((trusted.events(ofType: "room").first?["join_command"] as? String)?.hasSuffix("--server \(address) --ca \(cert)") == true)

        let untrusted = try ConfProcess(["host", "--server", address, "--duration", "0.5"])
        #expect(untrusted.waitForExit() == 6)
        #expect(untrusted.stderr.contains("--ca"))

        // Plain ws:// to this TLS rendezvous: told to use wss://.
        let plain = address.replacingOccurrences(of: "wss://", with: "ws://")
        for arguments in [["host", "--server", plain], ["join", "1234-5678", "123456", "--server", plain]] {
            let p = try ConfProcess(arguments + ["--duration", "0.5"])
            #expect(p.waitForExit() == 6)
            #expect(p.stderr.contains("speaks TLS: use --server \(address)"), "\(p.stderr)")
        }
        // No scheme is wss://: with the CA, it works.
        let bare = try ConfProcess(["join", "1234-5678", "123456", "--server", String(address.dropFirst(6)), "--ca", cert, "--duration", "0.5"])
        #expect(bare.waitForExit() == 5, "no such room, over TLS: \(bare.stderr)")

        let missingKey = try ConfProcess(["rendezvous", "--tls-cert", cert])
        #expect(missingKey.waitForExit() == 2)
    }

    /// `--ca` relative to the working directory works (GLib itself wants an absolute path); a
    /// missing or non-PEM file is one clear line and exit 2, with no GLib warnings.
    @Test func caFileProblemsAreClearAndRelativePathsWork() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("conf-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let (cert, _, server, address) = try Self.startTLSRendezvous(in: dir)

        // The same file, named from the working directory the process inherits.
        let up = FileManager.default.currentDirectoryPath.split(separator: "/").count
        let relative = String(repeating: "../", count: up) + cert.dropFirst()
        let trusted = try ConfProcess(["host", "--server", address, "--ca", relative, "--json"])
        // The printed join command works as it is: its --ca names the file absolutely.
        let join = try #require(trusted.waitForEvent("room")?["join_command"] as? String).split(separator: " ").dropFirst().map(String.init)
        let guest = try ConfProcess(join + ["--duration", "0.5"])
        #expect(guest.waitForExit() == 0, "\(guest.stderr)")
        trusted.signal(SIGTERM)
        #expect(trusted.waitForExit() == 0, "\(trusted.stderr)")
        #expect(!trusted.stderr.contains("WARNING"))

        for (ca, words) in [("/no/such/ca.pem", "cannot read it"), ("/etc/passwd", "No certificate"), (dir.path, "not a file")] {
            let p = try ConfProcess(["join", "1234-5678", "123456", "--server", address, "--ca", ca])
            #expect(p.waitForExit() == 2, "\(ca)")
            #expect(p.stderr.contains("--ca \(ca): ") && p.stderr.contains(words), "\(p.stderr)")
            #expect(p.stderr.split(separator: "\n").count == 1, "one line, no GLib CRITICAL: \(p.stderr)")
        }
        server.signal(SIGTERM)
        #expect(server.waitForExit() == 0)
    }

    @Test func aKeyThatIsNotTheCertificatesIsRefusedAtStart() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("conf-tls-\(UUID().uuidString)")
        let other = dir.appendingPathComponent("other")
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let (cert, _) = try Self.makeCertificate(in: dir)
        let (_, otherKey) = try Self.makeCertificate(in: other)
        let mismatched = try ConfProcess(["rendezvous", "--listen", "127.0.0.1:0", "--tls-cert", cert, "--tls-key", otherKey])
        #expect(mismatched.waitForExit() == 2)
        #expect(mismatched.stderr.contains("the key in \(otherKey) does not belong to the certificate in \(cert)"), "\(mismatched.stderr)")
        #expect(!mismatched.stdout.contains("listening"))
        let keyless = try ConfProcess(["rendezvous", "--listen", "127.0.0.1:0", "--tls-cert", cert, "--tls-key", cert])
        #expect(keyless.waitForExit() == 2)
        #expect(keyless.stderr.contains("holds no PEM private key"))
    }
}
