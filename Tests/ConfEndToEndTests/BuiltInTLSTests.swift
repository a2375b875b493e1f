import Foundation
import Testing

/// conf host's built-in rendezvous serves TLS by default with a certificate it keeps, and its join
/// line names that certificate by fingerprint: the joiner trusts it and no other, and a server
/// in between with its own certificate is refused before it hears anything.
@Suite struct BuiltInTLSTests {
    static func joinArguments(_ command: String) -> [String] { Array(command.split(separator: " ").dropFirst().map(String.init)) }

    @Test func thePrintedJoinLineUsesTLSAndTheFingerprint() throws {
        let state = try HomeRouters.temporaryDirectory()
        let environment = ["XDG_STATE_HOME": state.path]
        let host = try ConfProcess(["host", "--listen", "127.0.0.1:0", "--as", "ann", "--json", "--no-video"], environment: environment)
        let command = try #require(host.waitForEvent("room")?["join_command"] as? String, "\(host.stderr)")
        #expect(command.contains("--server wss://127.0.0.1:"), "\(command)")
        let fingerprint = try #require(command.split(separator: " ").last.map(String.init))
        #expect(command.contains("--fingerprint \(fingerprint)") && fingerprint.count == 32, "\(command)")
        let guest = try ConfProcess(Self.joinArguments(command) + ["--as", "bob", "--json", "--no-video", "--say", "over TLS"],
                                    environment: environment)
        #expect(guest.waitForEvent("peer-connected", timeout: .seconds(15)) != nil, "\(guest.stderr)")
        #expect(host.waitForEvent("chat", timeout: .seconds(5))?["text"] as? String == "over TLS")
        guest.signal(SIGTERM)
        host.signal(SIGTERM)
        #expect(host.waitForExit() == 0 && guest.waitForExit() == 0)

        // Kept: the next conf host presents the same certificate.
        let again = try ConfProcess(["host", "--listen", "127.0.0.1:0", "--json", "--no-video"], environment: environment)
        let second = try #require(again.waitForEvent("room")?["join_command"] as? String)
        #expect(second.hasSuffix("--fingerprint \(fingerprint)"), "\(second)")
        let file = state.appendingPathComponent("conf/rendezvous-tls.pem").path
        let mode = (try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? NSNumber)?.intValue
        #expect(mode == 0o600)
        again.signal(SIGTERM)
        _ = again.waitForExit()
    }

    /// A TLS server with its own certificate where the join line's rendezvous should be (a man in
    /// the middle): conf join refuses it with exit 11 and sends it nothing, so it never sees the pin.
    @Test func anotherCertificateIsRefusedBeforeThePinIsSent() throws {
        let state = try HomeRouters.temporaryDirectory()
        let host = try ConfProcess(["host", "--listen", "127.0.0.1:0", "--json", "--no-video"], environment: ["XDG_STATE_HOME": state.path])
        let command = try #require(host.waitForEvent("room")?["join_command"] as? String, "\(host.stderr)")
        let fingerprint = try #require(command.split(separator: " ").last.map(String.init))
        let pin = Self.joinArguments(command)[2]
        let dir = try HomeRouters.temporaryDirectory()
        let mitm = try TLSSink(in: dir)
        let guest = try ConfProcess(["join", Self.joinArguments(command)[1], pin, "--server", "wss://127.0.0.1:\(mitm.port)",
                                     "--fingerprint", fingerprint, "--json", "--no-video"])
        #expect(guest.waitForExit(timeout: .seconds(15)) == 11, "\(guest.stdout) \(guest.stderr)")
        #expect(guest.stderr.contains("presented certificate") && guest.stderr.contains(fingerprint), "\(guest.stderr)")
        #expect(mitm.connections() >= 1, "the test's server was never reached: \(mitm.log())")
        #expect(!mitm.log().contains(pin) && !mitm.log().contains("join"), "\(mitm.log())")
        // The same join to the real rendezvous works (the fingerprint was right).
        let real = try ConfProcess(Self.joinArguments(command) + ["--json", "--no-video", "--duration", "0.5"])
        #expect(real.waitForExit(timeout: .seconds(15)) == 0, "\(real.stderr)")
        host.signal(SIGTERM)
        _ = host.waitForExit()
    }

    @Test func aMistypedFingerprintIsAUsageError() throws {
        let guest = try ConfProcess(["join", "4821-7734", "381204", "--server", "127.0.0.1:9", "--fingerprint", "not-a-fingerprint"])
        #expect(guest.waitForExit() == 2)
        #expect(guest.stderr.contains("--fingerprint 'not-a-fingerprint'"), "\(guest.stderr)")
    }

    @Test func plainWebSocketsWhenAskedFor() throws {
        let host = try ConfProcess(["host", "--listen", "127.0.0.1:0", "--json", "--no-video", "--no-tls"])
        let command = try #require(host.waitForEvent("room")?["join_command"] as? String, "\(host.stderr)")
        #expect(command.contains("--server ws://127.0.0.1:") && !command.contains("--fingerprint"), "\(command)")
        host.signal(SIGTERM)
        _ = host.waitForExit()
    }
}

/// A TLS server on 127.0.0.1 with a certificate of its own (python3's ssl module), that writes
/// down every byte a client sends it after the handshake, and counts connections.
final class TLSSink {
    let process = Process()
    let port: Int
    private let dir: URL

    init(in dir: URL) throws {
        self.dir = dir
        let keys = try TLSTests.makeCertificate(in: dir)
        let script = """
        import socket, ssl, sys
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(sys.argv[1], sys.argv[2])
        s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
        print(s.getsockname()[1], flush=True)
        while True:
            c, _ = s.accept()
            open(sys.argv[3] + ".connections", "a").write("1\\n")
            try:
                t = ctx.wrap_socket(c, server_side=True)
                t.settimeout(2)
                while True:
                    data = t.recv(65536)
                    if not data: break
                    open(sys.argv[3], "ab").write(data)
            except Exception:
                pass
            finally:
                c.close()
        """
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script, keys.cert, keys.key, dir.appendingPathComponent("received").path]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let line = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
        guard let port = Int(line.trimmingCharacters(in: .whitespacesAndNewlines)) else { throw TestFailure("no TLS sink: '\(line)'") }
        self.port = port
    }

    deinit {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    func log() -> String { (try? String(contentsOf: dir.appendingPathComponent("received"), encoding: .utf8)) ?? "" }

    func connections() -> Int {
        ((try? String(contentsOf: dir.appendingPathComponent("received.connections"), encoding: .utf8)) ?? "").split(separator: "\n").count
    }
}
