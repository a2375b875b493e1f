import Foundation
import Testing

/// A rendezvous on port 0 takes one number for TCP and for its STUN server on UDP. The number the
/// kernel gives the UDP socket may be held for TCP by another program (an outgoing connection, under
/// the load of a parallel test run: a CI run's `conf host` died with "Address already in use").
/// In a namespace whose ephemeral range is ten ports, six of them held by TCP listeners, the
/// rendezvous must find one of the four free numbers every time (a random draw finds one 4 times
/// in 10: the four runs of each test all pass by chance 3 times in 100).
@Suite(.serialized, .enabled(if: NetworkNamespaces.available, "needs root and network namespaces (ip netns)"))
struct PortPairTests {
    static let free: Set<String> = ["40006", "40007", "40008", "40009"]

    @Test func aHostOnPortZeroFindsANumberFreeForTCPAndUDP() throws {
        try Self.inCrowdedNamespace { namespace in
            for run in 0..<4 {
                // Each run on an address of its own: the host's own connection to its rendezvous
                // takes an ephemeral port too, and the closed connections of the runs before
                // stay in TIME_WAIT for a minute. To one address, two of them took both odd
                // free numbers (connect's) and the next connect failed with "Cannot assign
                // requested address" (Tests/FLAKES.md).
                let host = try ConfProcess(["host", "--listen", "127.0.0.\(run + 1):0", "--as", "ann", "--json", "--no-tls"],
                                           namespace: namespace)
                let command = try #require(host.waitForEvent("room")?["join_command"] as? String, "run \(run): \(host.stderr)")
                let port = try #require(command.split(separator: ":").last.map(String.init))
                #expect(Self.free.contains(port), "run \(run): \(command)")
                #expect(!host.stderr.contains("no STUN"), "run \(run): \(host.stderr)")
                host.signal(SIGTERM)
                #expect(host.waitForExit() == 0, "run \(run)")
            }
        }
    }

    @Test func aStandingRendezvousOnPortZeroFindsOneToo() throws {
        try Self.inCrowdedNamespace { namespace in
            for workers in ["1", "2", "1", "2"] {
                let rendezvous = try ConfProcess(["rendezvous", "--listen", "127.0.0.1:0", "--no-tls", "--workers", workers], namespace: namespace)
                let line = try #require(rendezvous.waitForOutput(containing: "listening on"), "\(rendezvous.stderr)")
                #expect(Self.free.contains(String(line.suffix(5))), "\(line)")
                #expect(!rendezvous.stderr.contains("no STUN"), "\(rendezvous.stderr)")
                rendezvous.signal(SIGTERM)
                #expect(rendezvous.waitForExit() == 0)
            }
        }
    }

    /// Runs `body` in a namespace of its own whose ephemeral ports are 40000-40009, with TCP
    /// 40000-40005 held by listeners on every address.
    static func inCrowdedNamespace(_ body: (String) throws -> Void) throws {
        let namespace = "pp\(getpid() % 10_000)\(Int.random(in: 0..<100))"
        try NetworkChangeTests.ip(["netns", "add", namespace])
        defer { try? NetworkChangeTests.ip(["netns", "del", namespace]) }
        try NetworkChangeTests.ip(["netns", "exec", namespace, "ip", "link", "set", "lo", "up"])
        try NetworkChangeTests.ip(["netns", "exec", namespace, "sysctl", "-q", "-w", "net.ipv4.ip_local_port_range=40000 40009"])
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        holder.arguments = ["netns", "exec", namespace, "python3", "-c", """
            import socket, sys
            held = []
            for port in range(40000, 40006):
                s = socket.socket(); s.bind(("0.0.0.0", port)); s.listen(); held.append(s)
            print("held", flush=True)
            sys.stdin.read()
            """]
        let output = Pipe(), input = Pipe()
        holder.standardOutput = output
        holder.standardInput = input
        try holder.run()
        defer { try? input.fileHandleForWriting.close(); holder.waitUntilExit() }
        let said = output.fileHandleForReading.readLine()
        try #require(said == "held", "the port holder said \(said ?? "nothing")")
        try body(namespace)
    }
}

private extension FileHandle {
    /// One line, read a byte at a time (nil at end of file).
    func readLine() -> String? {
        var bytes: [UInt8] = []
        while let byte = try? read(upToCount: 1), let first = byte.first {
            if first == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(first)
        }
        return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
    }
}
