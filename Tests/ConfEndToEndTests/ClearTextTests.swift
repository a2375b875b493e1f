import Foundation
import Testing

/// A pin never crosses a network in clear unless someone wrote `ws://`: a plain TCP listener at a
/// non-loopback address (in a network namespace the test makes) stands where a rendezvous would
/// be, and records every byte `conf join` and `conf host` send it (docs/SECURITY.md, "TLS identity").
@Suite(.serialized, .enabled(if: NetworkNamespaces.available, "needs root and network namespaces (ip netns)"))
struct ClearTextTests {
    /// Records what each connection sends (up to 2 s of it), then closes it.
    final class PlainSink {
        let process = Process()
        let file: URL

        init(namespace: String, address: String, port: Int) throws {
            file = FileManager.default.temporaryDirectory.appendingPathComponent("conf-clear-\(getpid())-\(port)")
            let script = """
            import socket, sys
            s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind((sys.argv[1], int(sys.argv[2]))); s.listen(8)
            print("listening", flush=True)
            while True:
                c, _ = s.accept(); c.settimeout(2)
                try:
                    while True:
                        data = c.recv(65536)
                        if not data: break
                        open(sys.argv[3], "ab").write(data)
                except Exception:
                    pass
                c.close()
            """
            process.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
            process.arguments = ["netns", "exec", namespace, "/usr/bin/python3", "-c", script, address, String(port), file.path]
            let out = Pipe()
            process.standardOutput = out
            process.standardError = FileHandle.nullDevice
            try process.run()
            _ = out.fileHandleForReading.availableData  // "listening"
        }

        deinit {
            kill(process.processIdentifier, SIGKILL)
            try? FileManager.default.removeItem(at: file)
        }

        var received: [UInt8] { (try? Array(Data(contentsOf: file))) ?? [] }
    }

    @Test func aPinGoesToANetworkAddressOnlyOverTLS() throws {
        let namespace = "cclr\(getpid() % 10_000)"
        try NetworkChangeTests.ip(["netns", "add", namespace])
        defer { try? NetworkChangeTests.ip(["netns", "del", namespace]) }
        try NetworkChangeTests.ip(["-n", namespace, "link", "set", "lo", "up"])
        try NetworkChangeTests.ip(["-n", namespace, "addr", "add", "10.99.0.1/32", "dev", "lo"])
        let sink = try PlainSink(namespace: namespace, address: "10.99.0.1", port: 7373)

        // As a person types it: no scheme. What arrives is a TLS handshake, and no pin.
        let pin = "654321"
        let join = try ConfProcess(["join", "1234-5678", pin, "--server", "10.99.0.1:7373", "--no-audio", "--no-video", "--json"],
                                   namespace: namespace)
        #expect(join.waitForExit(timeout: .seconds(30)) == 6, "\(join.stderr)")
        let host = try ConfProcess(["host", "--server", "10.99.0.1:7373", "--no-audio", "--no-video", "--json"],
                                   environment: ["CONF_ROOM_KEY": "k3y-of-the-operator-0123"], namespace: namespace)
        #expect(host.waitForExit(timeout: .seconds(30)) == 6, "\(host.stderr)")
        let seen = sink.received
        #expect(seen.first == 0x16, "a TLS handshake record first: \(seen.prefix(8))")
        let text = String(decoding: seen, as: UTF8.self)
        for secret in [pin, "join", "k3y-of-the-operator", "/v1/rooms", "Upgrade"] {
            #expect(!text.contains(secret), "\(secret) crossed in clear")
        }
        // Written as ws://, it goes in clear, and conf says so first.
        let plain = try ConfProcess(["join", "1234-5678", pin, "--server", "ws://10.99.0.1:7373", "--no-audio", "--no-video", "--json"],
                                    namespace: namespace)
        _ = plain.waitForExit(timeout: .seconds(30))
        #expect(plain.stderr.contains("plain ws://") && plain.stderr.contains("in clear"), "\(plain.stderr)")
    }
}
