import Foundation
import Testing

/// The rendezvous through an HTTP proxy named in the environment (`http_proxy`, as curl reads it):
/// room creation and the WebSocket go through it, naming the host as the user gave it (the proxy
/// resolves it), while a rendezvous on loopback is always reached directly.
struct ProxyTests {
    @Test func aHostReachesTheRendezvousThroughItsProxyAndLoopbackGoesDirect() throws {
        let rendezvous = try RendezvousProcess()
        defer { rendezvous.process.signal(SIGKILL) }
        let proxy = try ForwardingProxy(forwardingTo: rendezvous.port)
        defer { proxy.stop() }
        // A name only the proxy can "resolve" (it sends everything to the rendezvous): the call
        // works only if conf asked the proxy. Plain ws://, as the rendezvous serves.
        let server = "ws://conf-rendezvous.test:\(rendezvous.port)"
        let host = try ConfProcess(["host", "--server", server, "--as", "ann", "--json", "--say", "via proxy"],
                                   environment: ["http_proxy": "127.0.0.1:\(proxy.port)"])
        defer { host.signal(SIGKILL) }
        let room = try #require(host.waitForEvent("room"), "\(host.stderr)\nproxy saw: \(proxy.requestLines)")
        let (id, pin) = (try #require(room["room"] as? String), try #require(room["pin"] as? String))
        // The same proxy in the guest's environment, but its rendezvous is on loopback.
        let guest = try ConfProcess(["join", id, pin, "--server", rendezvous.address, "--as", "bob", "--json"],
                                    environment: ["http_proxy": "127.0.0.1:\(proxy.port)"])
        defer { guest.signal(SIGKILL) }
        #expect(guest.waitForEvent("peer-connected", timeout: .seconds(20)) != nil, "\(guest.stderr)\nhost: \(host.stderr)\nproxy saw: \(proxy.requestLines)")
        #expect(guest.waitForEvent("chat", timeout: .seconds(10))?["text"] as? String == "via proxy", "\(guest.stdout)")
        let lines = proxy.requestLines
        #expect(lines.contains { $0.hasPrefix("POST ") && $0.contains("conf-rendezvous.test:\(rendezvous.port)/v1/rooms") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("GET ") && $0.contains("conf-rendezvous.test:\(rendezvous.port)/v1/ws") }, "\(lines)")
        #expect(!lines.contains { $0.contains("127.0.0.1") }, "loopback went through the proxy: \(lines)")
    }

    /// wss:// through `https_proxy`: a CONNECT tunnel, TLS inside it checked against the name the
    /// user gave (the certificate is for conf-rendezvous.test, not for the proxy or 127.0.0.1).
    @Test func aSecureRendezvousIsReachedThroughAConnectTunnel() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("conf-proxy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let (cert, key) = try TLSTests.makeCertificate(in: dir, ip: "conf-rendezvous.test")
        let rendezvous = try RendezvousProcess(["--tls-cert", cert, "--tls-key", key], tls: true)
        defer { rendezvous.process.signal(SIGKILL) }
        let proxy = try ForwardingProxy(forwardingTo: rendezvous.port)
        defer { proxy.stop() }
        let host = try ConfProcess(["host", "--server", "wss://conf-rendezvous.test:\(rendezvous.port)", "--ca", cert,
                                    "--json", "--duration", "0.5"],
                                   environment: ["https_proxy": "http://127.0.0.1:\(proxy.port)", "http_proxy": "http://127.0.0.1:1"])
        #expect(host.waitForExit(timeout: .seconds(15)) == 0, "\(host.stderr)\nproxy saw: \(proxy.requestLines)")
        #expect(host.events(ofType: "joined").count == 1, "\(host.stdout)")
        #expect(proxy.requestLines.contains("CONNECT conf-rendezvous.test:\(rendezvous.port) HTTP/1.1"), "\(proxy.requestLines)")
    }
}
