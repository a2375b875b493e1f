import Foundation
import Testing

/// Calls over IPv6: a rendezvous that listens on every interface takes IPv6 and IPv4 alike, and two
/// participants whose only link carries IPv6 (Tests/Network/ipv6-only.sh) meet through a rendezvous
/// given as `[2001:db8:6::1]:7373` and connect over host candidates on their IPv6 addresses.
@Suite(.serialized)
struct IPv6Tests {
    @Test func aRendezvousOnEveryInterfaceTakesIPv6AndIPv4() throws {
        // Plain, to reach it by an IPv6 address and an IPv4 one.
        let plain = try ConfProcess(["rendezvous", "--listen", ":0", "--no-tls"])
        let plainLine = try #require(plain.waitForOutput(containing: "listening on"), "\(plain.stderr)")
        #expect(plainLine.contains("[::]:"), "\(plainLine)")
        let plainPort = try #require(plainLine.split(separator: ":").last.map(String.init))
        for address in ["ws://127.0.0.1:\(plainPort)", "ws://[::1]:\(plainPort)"] {
            let host = try ConfProcess(["host", "--server", address, "--as", "ann", "--json"])
            #expect(host.waitForEvent("room") != nil, "through \(address): \(host.stderr)")
            host.signal(SIGTERM)
        }
        // As it runs by default: TLS, with the certificate it prints for its users' config.
        let rendezvous = try ConfProcess(["rendezvous", "--listen", ":0"])
        let line = try #require(rendezvous.waitForOutput(containing: "listening on"), "\(rendezvous.stderr)")
        #expect(line.contains("https://[::]:"), "\(line)")
        let port = try #require(line.split(separator: ":").last.map(String.init))
        let fingerprint = try #require(rendezvous.waitForOutput(containing: "fingerprint = ")?.split(separator: " ").last.map(String.init))
        // Over TLS to an IPv6 address too: GLib would name the server by the address (SNI), which
        // a GnuTLS server refuses; conf's client connects to the address itself and sends none.
        for address in ["127.0.0.1:\(port)", "[::1]:\(port)"] {
            let host = try ConfProcess(["host", "--server", address, "--as", "ann", "--json"], environment: ["CONF_FINGERPRINT": fingerprint])
            #expect(host.waitForEvent("room") != nil, "through \(address): \(host.stderr)")
            host.signal(SIGTERM)
        }
    }

    @Test(.enabled(if: NetworkNamespaces.available, "needs root and network namespaces (ip netns, iptables)"))
    func twoParticipantsOnAnIPv6OnlyLinkConnect() throws {
        let prefix = "c6\(getpid() % 10_000)"
        try Self.script("up", prefix)
        defer { try? Self.script("down", prefix) }
        let rendezvous = try ConfProcess(["rendezvous", "--listen", "[2001:db8:6::1]:7373", "--no-tls"],
                                         namespace: "\(prefix)-a")
        defer { rendezvous.signal(SIGKILL) }
        #expect(rendezvous.waitForOutput(containing: "listening on [2001:db8:6::1]:7373") != nil, "\(rendezvous.stderr)")
        let server = "ws://[2001:db8:6::1]:7373"
        let host = try ConfProcess(["host", "--server", server, "--as", "ann", "--json", "--say", "over six"], namespace: "\(prefix)-a")
        defer { host.signal(SIGKILL) }
        let room = try #require(host.waitForEvent("room"), "\(host.stderr)")
        let (id, pin) = (try #require(room["room"] as? String), try #require(room["pin"] as? String))
        let guest = try ConfProcess(["join", id, pin, "--server", server, "--as", "bob", "--json"], namespace: "\(prefix)-b")
        defer { guest.signal(SIGKILL) }
        let connected = try #require(guest.waitForEvent("peer-connected", timeout: .seconds(20)), "\(guest.stdout)\n\(guest.stderr)")
        #expect(connected["path"] as? String == "host")
        #expect((connected["local"] as? String)?.hasPrefix("[2001:db8:6::2]:") == true, "\(connected)")
        #expect((connected["remote"] as? String)?.hasPrefix("[2001:db8:6::1]:") == true, "\(connected)")
        #expect(guest.waitForEvent("chat", timeout: .seconds(10))?["text"] as? String == "over six", "\(guest.stdout)")
    }

    static let scriptPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Network/ipv6-only.sh").path

    static func script(_ action: String, _ prefix: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [scriptPath, action, prefix]
        let pipe = Pipe()
        process.standardError = pipe
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw TestFailure("ipv6-only.sh \(action): \(String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))")
        }
    }
}
