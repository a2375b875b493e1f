import Foundation
import Testing

/// Two participants, each behind its own NAT, in network namespaces built by
/// Tests/Network/two-nats.sh: they connect through their server-reflexive addresses, learnt from
/// the rendezvous itself (which answers STUN at its own port) or from a STUN server named.
@Suite(.serialized, .enabled(if: NetworkNamespaces.available, "needs root and network namespaces (ip netns, iptables)"))
struct NATTraversalTests {

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Network/two-nats.sh").path

    /// The namespaces, a rendezvous and a STUN server on the "public" side; removed in deinit.
    final class Internet {
        let prefix = "cf\(getpid() % 10_000)"
        var servers: [Process] = []
        let rendezvous: ConfProcess

        init() throws {
            try Self.run([NATTraversalTests.script, "up", prefix])
            let stun = Process()
            stun.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
            stun.arguments = ["netns", "exec", "\(prefix)-pub", "/usr/bin/turnserver", "-n", "--listening-ip=198.51.100.1",
                              "--listening-port=3478", "--stun-only", "--no-tls", "--no-dtls", "--no-cli", "--log-file=stdout",
                              "--pidfile=/tmp/conf-stun-\(prefix).pid"]
            stun.standardOutput = FileHandle.nullDevice
            stun.standardError = FileHandle.nullDevice
            try stun.run()
            servers.append(stun)
            rendezvous = try ConfProcess(["rendezvous", "--listen", "198.51.100.1:7373", "--no-tls"], namespace: "\(prefix)-pub")
            guard rendezvous.waitForOutput(containing: "listening on") != nil else {
                throw TestFailure("no rendezvous in the namespace: \(rendezvous.stderr)")
            }
        }

        deinit {
            for server in servers { kill(server.processIdentifier, SIGKILL); server.waitUntilExit() }
            rendezvous.signal(SIGKILL)
            try? Self.run([NATTraversalTests.script, "down", prefix])
        }

        static func run(_ arguments: [String]) throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments = arguments
            let pipe = Pipe()
            process.standardError = pipe
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw TestFailure("\(arguments): \(String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))")
            }
        }

        /// Host in LAN 1, join from LAN 2, with `flags` on both; the guest gives up after `timeout`
        /// seconds, the host waits longer (so the guest is the one to report the failure).
        func call(_ flags: [String], timeout: String) throws -> (host: ConfProcess, guest: ConfProcess) {
            let host = try ConfProcess(["host", "--server", "ws://198.51.100.1:7373", "--as", "ann", "--json", "--connect-timeout", "60"] + flags,
                                       namespace: "\(prefix)-lan1")
            guard let room = host.waitForEvent("room"), let command = room["join_command"] as? String else {
                throw TestFailure("no room: \(host.stderr)")
            }
            let guest = try ConfProcess(Array(command.split(separator: " ").dropFirst().map(String.init))
                                        + ["--as", "bob", "--json", "--connect-timeout", timeout] + flags, namespace: "\(prefix)-lan2")
            return (host, guest)
        }
    }

    /// No --stun anywhere: the rendezvous hands out itself, and each side learns its NAT's
    /// address from it (before it answered STUN, this call failed with exit 8).
    @Test func theRendezvousIsTheirSTUNServer() throws {
        let internet = try Internet()
        let (host, guest) = try internet.call(["--say", "no third party"], timeout: "10")
        let connected = guest.waitForEvent("peer-connected", timeout: .seconds(12))
        #expect(connected?["path"] as? String == "srflx", "\(guest.stdout) \(guest.stderr)")
        #expect((connected?["remote"] as? String)?.hasPrefix("198.51.100.2:") == true)
        #expect(host.waitForEvent("chat", timeout: .seconds(5))?["text"] as? String == "no third party")
        guest.signal(SIGKILL)
        host.signal(SIGKILL)
    }

    @Test func withSTUNTheyConnectThroughTheirPublicAddresses() throws {
        let internet = try Internet()
        let (host, guest) = try internet.call(["--stun", "198.51.100.1:3478", "--say", "through two NATs"], timeout: "10")
        let connected = guest.waitForEvent("peer-connected", timeout: .seconds(12))
        #expect(connected?["path"] as? String == "srflx", "\(guest.stdout)")
        #expect((connected?["remote"] as? String)?.hasPrefix("198.51.100.2:") == true)
        #expect(host.waitForEvent("chat", timeout: .seconds(5))?["text"] as? String == "through two NATs")
        guest.signal(SIGKILL)
        host.signal(SIGKILL)
    }
}

enum NetworkNamespaces {
    /// Whether this machine lets us make network namespaces and NAT rules (root, iproute2, iptables).
    static let available: Bool = {
        let probe = "cfprobe\(getpid() % 10_000)"
        func run(_ arguments: [String]) -> Bool {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", arguments.joined(separator: " ") + " >/dev/null 2>&1"]
            guard (try? process.run()) != nil else { return false }
            process.waitUntilExit()
            return process.terminationStatus == 0
        }
        defer { _ = run(["ip", "netns", "del", probe]) }
        return run(["ip", "netns", "add", probe]) && run(["ip", "netns", "exec", probe, "iptables", "-t", "nat", "-L"])
    }()
}
