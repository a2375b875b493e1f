import Foundation
import Testing

/// An address that appears mid-call (Tests/Network/lossy-link.sh with no loss): conf notices
/// within a second or so, sets its link up again on the new set of addresses and stays in the room.
@Suite(.serialized, .enabled(if: NetworkNamespaces.available, "needs root and network namespaces (ip netns, iptables)"))
struct NetworkChangeTests {
    @Test func aNewAddressSetsTheLinkUpAgainWithoutLeaving() throws {
        let prefix = "nc\(getpid() % 10_000)"
        try LossTests.run(["up", prefix, "0"])
        defer { try? LossTests.run(["down", prefix]) }
        let (host, guest) = try Self.call(in: prefix)
        defer { for p in [host, guest] { p.signal(SIGKILL) } }
        #expect(guest.waitForEvent("peer-connected", timeout: .seconds(15)) != nil, "\(guest.stderr)")
        try Self.ip(["netns", "exec", "\(prefix)-b", "ip", "addr", "add", "10.9.0.3/24", "dev", "\(prefix)-y"])
        let changed = guest.waitForEvent("peer-disconnected", timeout: .seconds(5))
        #expect(changed?["code"] as? String == "network-changed", "\(guest.stdout)\n\(guest.stderr)")
        #expect(host.waitForEvent("peer-disconnected", timeout: .seconds(5))?["code"] as? String == "network-changed", "\(host.stdout)")
        #expect(ConfProcess.waitUntil(timeout: .seconds(10)) { guest.events(ofType: "peer-connected").count == 2 }, "\(guest.stdout)")
        #expect(guest.events(ofType: "left").isEmpty && host.events(ofType: "peer-left").isEmpty, "nobody left the room")
    }

    /// A laptop moving networks: the guest gets a second address, then loses the one its link and
    /// its rendezvous connection used. The link comes back on the new address, the guest's
    /// rendezvous connection is resumed from it, and nobody leaves the room.
    @Test func losingTheAddressInUseMovesTheLinkToTheNewOne() throws {
        let prefix = "nm\(getpid() % 10_000)"
        try LossTests.run(["up", prefix, "0"])
        defer { try? LossTests.run(["down", prefix]) }
        let (host, guest) = try Self.call(in: prefix)
        defer { for p in [host, guest] { p.signal(SIGKILL) } }
        let first = guest.waitForEvent("peer-connected", timeout: .seconds(15))
        #expect((first?["local"] as? String)?.hasPrefix("10.9.0.2:") == true, "\(first ?? [:]) \(guest.stderr)")
        // As systemd sets it on most machines: the second address of a subnet stays when the first goes.
        try Self.ip(["netns", "exec", "\(prefix)-b", "sysctl", "-q", "-w", "net.ipv4.conf.\(prefix)-y.promote_secondaries=1"])
        try Self.ip(["netns", "exec", "\(prefix)-b", "ip", "addr", "add", "10.9.0.3/24", "dev", "\(prefix)-y"])
        #expect(ConfProcess.waitUntil(timeout: .seconds(10)) { guest.events(ofType: "peer-connected").count == 2 }, "\(guest.stdout)")
        try Self.ip(["netns", "exec", "\(prefix)-b", "ip", "addr", "del", "10.9.0.2/24", "dev", "\(prefix)-y"])
        #expect(ConfProcess.waitUntil(timeout: .seconds(20)) { guest.events(ofType: "peer-connected").count == 3 },
                "\(guest.stdout)\n\(guest.stderr)")
        let last = guest.events(ofType: "peer-connected").last
        #expect((last?["local"] as? String)?.hasPrefix("10.9.0.3:") == true, "the link runs from the new address: \(last ?? [:])")
        #expect(ConfProcess.waitUntil(timeout: .seconds(10)) { host.events(ofType: "peer-connected").count >= 3 }, "\(host.stdout)")
        #expect(guest.events(ofType: "left").isEmpty && host.events(ofType: "peer-left").isEmpty, "nobody left the room: \(host.stdout)")
    }

    /// ann hosts in PREFIX-a (10.9.0.1), bob joins from PREFIX-b (10.9.0.2).
    static func call(in prefix: String) throws -> (host: ConfProcess, guest: ConfProcess) {
        let host = try ConfProcess(["host", "--listen", "10.9.0.1:7373", "--as", "ann", "--json"], namespace: "\(prefix)-a")
        guard let join = host.waitForEvent("room")?["join_command"] as? String else {
            host.signal(SIGKILL)
            throw TestFailure("no room from the host: \(host.stderr)")
        }
        let command = join.split(separator: " ").dropFirst().map(String.init)
        return (host, try ConfProcess(command + ["--as", "bob", "--json"], namespace: "\(prefix)-b"))
    }

    static func ip(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw TestFailure("ip \(arguments.joined(separator: " ")) failed") }
    }
}
