import Foundation
import Synchronization
import Testing

/// Across the internet with nothing but conf: two homes behind NAT routers in network namespaces
/// (Tests/Network/home-routers.sh), the first router running miniupnpd (UPnP-IGD, NAT-PMP, PCP)
/// unless told not to, a standing rendezvous and coturn on the "internet" between them.
@Suite(.serialized, .enabled(if: NetworkNamespaces.available && HomeRouters.toolsPresent,
                             "needs root, network namespaces, nftables and miniupnpd (scripts/install-deps --test)"))
struct ReachabilityTests {
    static let media = ["--audio-source", "tone:440", "--video-source", "pattern", "--video-view", "none"]

    /// The host behind a UPnP router, the joiner behind a plain NAT: the join line conf host
    /// prints, run unchanged, connects them directly; audio and video go both ways; when the host
    /// leaves the router holds no mapping of conf's.
    @Test func theHostOpensItsOwnDoor() throws {
        let homes = try HomeRouters()
        let annDir = try HomeRouters.temporaryDirectory(), bobDir = try HomeRouters.temporaryDirectory()
        let host = try ConfProcess(["host", "--as", "ann", "--json", "--record", annDir.path, "--connect-timeout", "60"] + Self.media,
                                   environment: ["CONF_PORT_MAPPING": "on"], namespace: homes.ns("h1"))
        let verdict = try #require(host.waitForEvent("reachability", timeout: .seconds(15)), "\(host.stderr)")
        #expect(verdict["verdict"] as? String == "reachable", "\(verdict)")
        #expect(["upnp", "nat-pmp", "pcp"].contains(verdict["via"] as? String ?? ""), "\(verdict)")
        #expect(verdict["address"] as? String == "11.0.0.2:7373")
        #expect(homes.routerMappings().count == 2, "\(homes.routerMappings())")  // TCP and UDP 7373
        let command = try #require(host.events(ofType: "room").first?["join_command"] as? String)
        #expect(command.contains("--server wss://11.0.0.2:7373 --fingerprint "), "\(command)")

        let guest = try ConfProcess(Array(command.split(separator: " ").dropFirst().map(String.init))
                                    // 10 s: under a full parallel run the link once came up 5 s late (Tests/FLAKES.md, open).
                                    + ["--as", "bob", "--json", "--duration", "10", "--record", bobDir.path] + Self.media,
                                    namespace: homes.ns("h2"))
        let connected = guest.waitForEvent("peer-connected", timeout: .seconds(15))
        #expect(["host", "srflx", "prflx"].contains(connected?["path"] as? String ?? ""), "\(guest.stdout) \(guest.stderr)")
        #expect((connected?["remote"] as? String)?.hasPrefix("11.0.0.2:") == true, "\(connected ?? [:])")
        // The host's media port is forwarded too (its host candidate on the LAN, not loopback),
        // and the router was asked a few times, not without end (GUPnP-IGD's retries of a
        // refused "any port", Tests/FLAKES.md).
        #expect(homes.routerMappings().count == 3, "\(homes.routerMappings())")
        let requests = homes.routerRequests()
        #expect(requests.upnp + requests.pcp <= 12 && requests.refusedAsConflict == 0, "\(requests)")
        #expect(guest.waitForExit(timeout: .seconds(25)) == 0, "\(guest.stderr)")
        host.signal(SIGTERM)
        #expect(host.waitForExit(timeout: .seconds(15)) == 0, "\(host.stderr)")
        for (dir, peer) in [(bobDir, "ann"), (annDir, "bob")] {
            // > 1 s; when short, how long the link took to come up (setup_ms) says why.
            #expect(HomeRouters.size(dir.appendingPathComponent("\(peer).wav")) > 96_000, "\(peer)'s audio in \(dir.path); bob's link: \(connected ?? [:])")
            #expect(HomeRouters.size(dir.appendingPathComponent("\(peer).ivf")) > 32 + 10 * 12, "\(peer)'s video in \(dir.path)")
        }
        #expect(homes.routerMappings().isEmpty, "left behind: \(homes.routerMappings())")
    }

    /// A host killed with SIGKILL cannot delete its mappings: they were asked for ten minutes
    /// (renewed while it runs), so the router drops them within that, not in one or two hours,
    /// and the next conf on the machine deletes them at once.
    /// Their remaining lifetimes are read from the router (UPnP's GetGenericPortMappingEntry,
    /// which miniupnpd answers for its PCP and NAT-PMP mappings too).
    /// conf host in home 1 with port mapping on, reachable (its verdict returned), and a guest in
    /// home 2 connected to it: the router then holds the rendezvous's TCP and UDP and the media port.
    private func mappedCall(_ homes: HomeRouters) throws -> (host: ConfProcess, guest: ConfProcess, verdict: [String: Any]) {
        let host = try ConfProcess(["host", "--as", "ann", "--json", "--connect-timeout", "60"] + Self.media,
                                   environment: ["CONF_PORT_MAPPING": "on"], namespace: homes.ns("h1"))
        let verdict = try #require(host.waitForEvent("reachability", timeout: .seconds(15)), "\(host.stderr)")
        #expect(verdict["verdict"] as? String == "reachable", "\(verdict)")
        let command = try #require(host.events(ofType: "room").first?["join_command"] as? String)
        let guest = try ConfProcess(Array(command.split(separator: " ").dropFirst().map(String.init)) + ["--as", "bob", "--json"] + Self.media,
                                    namespace: homes.ns("h2"))
        #expect(guest.waitForEvent("peer-connected", timeout: .seconds(15)) != nil, "\(guest.stderr)")
        #expect(ConfProcess.waitUntil(timeout: .seconds(10)) { homes.routerMappings().count == 3 }, "\(homes.routerMappings())")
        return (host, guest, verdict)
    }

    @Test func aKilledHostsMappingsLastMinutesAndTheNextConfDeletesThem() throws {
        let homes = try HomeRouters()
        let (host, guest, _) = try mappedCall(homes)
        host.signal(SIGKILL)
        _ = host.waitForExit()
        let leases = homes.routerLeases()
        #expect(leases.count == 3, "\(leases)")
        #expect(leases.allSatisfy { $0 > 0 && $0 <= 600 }, "remaining seconds: \(leases)")
        // The next conf on this machine deletes what the dead one left (it kept the deletions,
        // each PCP mapping's nonce in them), then maps its own: the dead host's media port goes.
        let next = try ConfProcess(["host", "--as", "cid", "--json"] + Self.media, environment: ["CONF_PORT_MAPPING": "on"],
                                   namespace: homes.ns("h1"))
        #expect(next.waitForEvent("reachability", timeout: .seconds(15))?["verdict"] as? String == "reachable", "\(next.stderr)")
        #expect(ConfProcess.waitUntil(timeout: .seconds(10)) { homes.routerMappings().count == 2 }, "left: \(homes.routerMappings())")
        next.signal(SIGTERM)
        #expect(next.waitForExit() == 0)
        #expect(homes.routerMappings().isEmpty, "left behind: \(homes.routerMappings())")
        guest.signal(SIGTERM)
        _ = guest.waitForExit()
    }

    /// The same with a router that speaks UPnP-IGD only (many do): each mapping's description
    /// names the conf that holds it, and the next conf takes the dead one's mappings over and
    /// deletes them.
    @Test func aKilledHostsUPnPMappingsAreDeletedByTheNextConf() throws {
        let homes = try HomeRouters(["NATPMP": "no"])
        let (host, guest, verdict) = try mappedCall(homes)
        #expect(verdict["via"] as? String == "upnp", "\(verdict)")
        let held = homes.routerDescriptions()
        #expect(held.count == 3 && held.allSatisfy { $0.description == "conf \(host.pid)" }, "\(held)")
        let mediaPort = try #require(held.first { $0.port != 7373 }?.port)
        host.signal(SIGKILL)
        _ = host.waitForExit()
        #expect(homes.routerLeases().allSatisfy { $0 > 0 && $0 <= 600 }, "remaining seconds: \(homes.routerLeases())")
        let next = try ConfProcess(["host", "--as", "cid", "--json"] + Self.media, environment: ["CONF_PORT_MAPPING": "on"],
                                   namespace: homes.ns("h1"))
        #expect(next.waitForEvent("reachability", timeout: .seconds(20))?["verdict"] as? String == "reachable", "\(next.stderr)")
        #expect(ConfProcess.waitUntil(timeout: .seconds(10)) { !homes.routerDescriptions().contains { $0.port == mediaPort } },
                "left: \(homes.routerDescriptions())")
        let now = homes.routerDescriptions()
        #expect(now.count == 2 && now.allSatisfy { $0.port == 7373 && $0.description == "conf \(next.pid)" }, "\(now)")
        next.signal(SIGTERM)
        #expect(next.waitForExit() == 0)
        #expect(homes.routerMappings().isEmpty, "left behind: \(homes.routerMappings())")
        guest.signal(SIGTERM)
        _ = guest.waitForExit()
    }

    /// Both routers give each destination a port of its own, which no hole punching gets through;
    /// the host's router forwards its media port (PCP here), and so the guest reaches it directly,
    /// with no relay. The same homes without the forward: see `symmetricNATsNeedARelay`.
    @Test func aForwardedMediaPortNeedsNoRelay() throws {
        let homes = try HomeRouters(["SYMMETRIC": "1"])
        let rendezvous = try homes.standingRendezvous()
        let (host, guest) = try homes.call(server: "ws://11.0.0.1:7373", guestTimeout: "10", hostEnvironment: ["CONF_PORT_MAPPING": "on"])
        let connected = guest.waitForEvent("peer-connected", timeout: .seconds(15))
        #expect((connected?["remote"] as? String)?.hasPrefix("11.0.0.2:") == true, "\(guest.stdout) \(guest.stderr)")
        #expect(connected?["path"] as? String != "relay")
        #expect(host.waitForEvent("chat", timeout: .seconds(10))?["text"] as? String == "through the relay")
        #expect(homes.routerMappings().count == 1, "\(homes.routerMappings())")  // the media port, UDP
        guest.signal(SIGTERM)
        host.signal(SIGTERM)
        #expect(host.waitForExit(timeout: .seconds(15)) == 0, "\(host.stderr)")
        #expect(homes.routerMappings().isEmpty, "left behind: \(homes.routerMappings())")
        withExtendedLifetime(rendezvous) {}
    }

    /// A router without UPnP, NAT-PMP or PCP: the verdict says so and names the port; through a
    /// standing rendezvous (which is also their STUN server) the call then works.
    @Test func aRouterThatWillNotOpen() throws {
        let homes = try HomeRouters(upnp: false)
        let host = try ConfProcess(["host", "--as", "ann", "--json", "--no-video"], environment: ["CONF_PORT_MAPPING": "on"],
                                   namespace: homes.ns("h1"))
        let verdict = try #require(host.waitForEvent("reachability", timeout: .seconds(15)), "\(host.stderr)")
        #expect(verdict["verdict"] as? String == "closed" && verdict["via"] as? String == "none", "\(verdict)")
        let advice = verdict["advice"] as? String ?? ""
        #expect(advice.contains("TCP and UDP port 7373") && advice.contains("--server"), "\(advice)")
        // The human line follows the JSON event on the other stream: waited for, not assumed.
        #expect(ConfProcess.waitUntil { host.stderr.contains("Not reachable from the internet") }, "\(host.stderr)")
        host.signal(SIGTERM)
        #expect(host.waitForExit(timeout: .seconds(15)) == 0)

        let rendezvous = try homes.standingRendezvous()
        let standing = try ConfProcess(["host", "--server", "ws://11.0.0.1:7373", "--as", "ann", "--json", "--no-video", "--connect-timeout", "60"],
                                       environment: ["CONF_PORT_MAPPING": "on"], namespace: homes.ns("h1"))
        let command = try #require(standing.waitForEvent("room")?["join_command"] as? String, "\(standing.stderr)")
        #expect(standing.events(ofType: "reachability").isEmpty)  // a standing rendezvous: nothing to open
        let guest = try ConfProcess(Array(command.split(separator: " ").dropFirst().map(String.init))
                                    + ["--as", "bob", "--json", "--no-video", "--say", "through the standing one"], namespace: homes.ns("h2"))
        #expect(guest.waitForEvent("peer-connected", timeout: .seconds(15))?["path"] as? String == "srflx", "\(guest.stderr)")
        #expect(standing.waitForEvent("chat", timeout: .seconds(5))?["text"] as? String == "through the standing one")
        guest.signal(SIGKILL)
        standing.signal(SIGKILL)
        withExtendedLifetime(rendezvous) {}
    }

    /// A router whose own WAN address is shared (100.64.0.0/10): the carrier-grade verdict.
    @Test func carrierGradeNAT() throws {
        let homes = try HomeRouters(["WAN1": "100.64.0.2"])
        let host = try ConfProcess(["host", "--as", "ann", "--json", "--no-video"], environment: ["CONF_PORT_MAPPING": "on"],
                                   namespace: homes.ns("h1"))
        let verdict = try #require(host.waitForEvent("reachability", timeout: .seconds(15)), "\(host.stderr)")
        #expect(verdict["verdict"] as? String == "carrier-grade-nat", "\(verdict)")
        #expect((verdict["advice"] as? String)?.contains("--server") == true)
        #expect(verdict["address"] as? String == "192.168.1.10:7373")
        host.signal(SIGTERM)
        #expect(host.waitForExit(timeout: .seconds(15)) == 0)
        #expect(homes.routerMappings().isEmpty)
    }

    /// Two homes behind NATs that give each destination a port of its own: without a relay the
    /// joiner exits 8 naming the cause it saw and the cure; with coturn handed out by the
    /// rendezvous, the call goes through the relay, with no flag: libnice's relay pairs beside its
    /// other candidates went unanswered here, so the link's third set-up (after two stalls of 5 s)
    /// is relay-only on both sides (`CallEngine.relayOnlyFromAttempt`).
    @Test func symmetricNATsNeedARelay() throws {
        let homes = try HomeRouters(upnp: false, ["SYMMETRIC": "1"])
        let alone = try homes.standingRendezvous(port: 7373)
        let (host, guest) = try homes.call(server: "ws://11.0.0.1:7373", guestTimeout: "5")
        #expect(guest.waitForExit(timeout: .seconds(20)) == 8, "\(guest.stdout) \(guest.stderr)")
        #expect(guest.stderr.contains("both behind NATs") && guest.stderr.contains("symmetric") && guest.stderr.contains("TURN"), "\(guest.stderr)")
        host.signal(SIGKILL)

        try homes.coturn()
        let relaying = try homes.standingRendezvous(["--turn", "conf:secret@11.0.0.1:3478"], port: 7374)
        let (relayedHost, relayed) = try homes.call(server: "ws://11.0.0.1:7374", guestTimeout: "15")
        #expect(relayed.waitForEvent("peer-connected", timeout: .seconds(20))?["path"] as? String == "relay", "\(relayed.stderr)")
        #expect(relayed.stderr.contains("trying through the TURN relay alone"), "\(relayed.stderr)")
        #expect(relayedHost.waitForEvent("chat", timeout: .seconds(10))?["text"] as? String == "through the relay")
        relayed.signal(SIGKILL)
        relayedHost.signal(SIGKILL)
        withExtendedLifetime((alone, relaying)) {}
    }

    /// `conf check` behind each kind of home router says what a call from there would meet: two
    /// STUN servers (a standing rendezvous at 7373 and another at 7374) compare the NAT's ports,
    /// the router is asked for the port (and the forward deleted again), TURN is asked.
    @Test(arguments: ["upnp", "none", "carrier-grade", "symmetric"])
    func confCheckSaysWhatEachRouterIs(router: String) throws {
        let environment = router == "carrier-grade" ? ["WAN1": "100.64.0.2"] : router == "symmetric" ? ["SYMMETRIC": "1"] : [:]
        let homes = try HomeRouters(upnp: router != "none" && router != "symmetric", environment)
        let servers = [try homes.standingRendezvous(), try homes.standingRendezvous(port: 7374)]
        if router == "symmetric" { try homes.coturn() }
        let turn = router == "symmetric" ? ["--turn", "conf:secret@11.0.0.1:3478"] : []
        let check = try ConfProcess(["check", "--server", "ws://11.0.0.1:7373", "--stun", "11.0.0.1:7374", "--json"] + turn,
                                    environment: ["CONF_PORT_MAPPING": "on"], namespace: homes.ns("h1"))
        let status = check.waitForExit(timeout: .seconds(30))
        let event = try #require(check.events(ofType: "check").first, "\(check.stdout) \(check.stderr)")
        let mapping = event["port_mapping"] as? [String: Any] ?? [:]
        switch router {
        case "upnp":
            #expect(status == 0 && event["verdict"] as? String == "direct" && mapping["verdict"] as? String == "reachable", "\(event)")
            #expect(event["nat"] as? String == "endpoint-independent" && (event["mapped_address"] as? String)?.hasPrefix("11.0.0.2:") == true, "\(event)")
            #expect(homes.routerMappings().isEmpty, "the check's forward is deleted: \(homes.routerMappings())")
        case "none":
            #expect(status == 0 && event["verdict"] as? String == "direct" && mapping["verdict"] as? String == "closed", "\(event)")
            #expect(event["nat"] as? String == "endpoint-independent", "\(event)")
        case "carrier-grade":
            #expect(mapping["verdict"] as? String == "carrier-grade-nat", "\(event)")
            #expect(status == 0 && event["nat"] as? String == "endpoint-independent", "\(event)")
        default:
            #expect(status == 13 && event["verdict"] as? String == "relay" && event["nat"] as? String == "per-destination", "\(event)")
            #expect(event["turn"] as? String == "reachable", "\(event)")
            #expect(check.stderr.contains("a direct call is unlikely"), "\(check.stderr)")
        }
        withExtendedLifetime(servers) {}
    }

    /// An unmodified STUN client (coturn's) behind a NAT gets its NAT's address from a standing
    /// rendezvous, which answers STUN at its own port.
    @Test func theRendezvousAnswersAnUnmodifiedSTUNClient() throws {
        let homes = try HomeRouters(upnp: false)
        let rendezvous = try homes.standingRendezvous()
        let output = try HomeRouters.run(["ip", "netns", "exec", homes.ns("h2"), "turnutils_stunclient", "-p", "7373", "11.0.0.1"])
        #expect(output.contains("UDP reflexive addr: 11.0.0.3:"), "\(output)")
        withExtendedLifetime(rendezvous) {}
    }
}

/// The two homes of Tests/Network/home-routers.sh, made for one test and removed after it;
/// router 1 runs miniupnpd unless `upnp` is false.
final class HomeRouters {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Network/home-routers.sh").path
    static let toolsPresent = FileManager.default.isExecutableFile(atPath: "/usr/sbin/miniupnpd")
        && FileManager.default.isExecutableFile(atPath: "/usr/sbin/nft")
    /// Unique to each instance: suites that run at the same time (ReachabilityTests, ACMETests)
    /// each get homes of their own.
    let prefix = "hr\(getpid() % 10_000)-\(HomeRouters.made.add(1, ordering: .relaxed).oldValue % 100)"
    private static let made = Atomic(0)
    private var servers: [ConfProcess] = []
    private var miniupnpd: Process?
    private var helpers: [Process] = []

    init(upnp: Bool = true, _ environment: [String: String] = [:]) throws {
        _ = try Self.run(["bash", Self.script, "up", prefix], environment: environment)
        guard upnp else { return }
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: "/bin/bash")
        daemon.arguments = [Self.script, "upnpd", prefix]
        try daemon.run()
        miniupnpd = daemon
        let log = "/run/\(prefix)-routers/miniupnpd.log"
        let ready = environment["NATPMP"] == "no" ? "HTTP listening" : "Listening for NAT-PMP"
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if (try? String(contentsOfFile: log, encoding: .utf8))?.contains(ready) == true { return }
            guard daemon.isRunning else { break }
            usleep(20_000)  // polling the daemon's log for its ready line, with a deadline
        }
        throw TestFailure("miniupnpd did not start: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "no log")")
    }

    deinit {
        for server in servers { server.signal(SIGKILL); _ = server.waitForExit(timeout: .seconds(5)) }
        for helper in helpers + [miniupnpd].compactMap({ $0 }) { kill(helper.processIdentifier, SIGKILL); helper.waitUntilExit() }
        _ = try? Self.run(["bash", Self.script, "down", prefix])
    }

    func ns(_ name: String) -> String { "\(prefix)-\(name)" }

    /// A standing `conf rendezvous` on the internet at 11.0.0.1:`port` (it answers STUN there too).
    func standingRendezvous(_ extra: [String] = [], port: Int = 7373) throws -> ConfProcess {
        let rendezvous = try ConfProcess(["rendezvous", "--listen", "11.0.0.1:\(port)", "--no-tls"] + extra, namespace: ns("inet"))
        guard rendezvous.waitForOutput(containing: "listening on") != nil else { throw TestFailure("no rendezvous: \(rendezvous.stderr)") }
        servers.append(rendezvous)
        return rendezvous
    }

    /// conf host in home 1 on the standing rendezvous at `server`, and the joiner in home 2 (who
    /// says "through the relay" once connected and gives up after `guestTimeout` seconds).
    func call(server: String, guestTimeout: String, extra: [String] = [], hostEnvironment: [String: String] = [:]) throws
        -> (host: ConfProcess, guest: ConfProcess) {
        let host = try ConfProcess(["host", "--server", server, "--as", "ann", "--json", "--no-video", "--connect-timeout", "60"] + extra,
                                   environment: hostEnvironment, namespace: ns("h1"))
        let command = try #require(host.waitForEvent("room")?["join_command"] as? String, "\(host.stderr)")
        let guest = try ConfProcess(Array(command.split(separator: " ").dropFirst().map(String.init))
                                    + ["--as", "bob", "--json", "--no-video", "--connect-timeout", guestTimeout, "--say", "through the relay"] + extra,
                                    namespace: ns("h2"))
        return (host, guest)
    }

    /// coturn on the internet at 11.0.0.1:3478 (user conf, password secret), until the homes go.
    func coturn() throws {
        let turn = Process()
        turn.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        turn.arguments = ["netns", "exec", ns("inet"), "/usr/bin/turnserver", "-n", "--listening-ip=11.0.0.1", "--listening-port=3478",
                          "--relay-ip=11.0.0.1", "--user=conf:secret", "--realm=conf.test", "--lt-cred-mech", "--no-tls", "--no-dtls",
                          "--no-cli", "--min-port=49152", "--max-port=49400", "--log-file=stdout", "--pidfile=/tmp/conf-turn-\(prefix).pid",
                          // Both homes' relay addresses are this server's own: relaying between them is "to itself".
                          "--allow-loopback-peers"]
        turn.standardOutput = FileHandle.nullDevice
        turn.standardError = FileHandle.nullDevice
        try turn.run()
        helpers.append(turn)
    }

    /// The port forwards router 1 holds now (miniupnpd's DNAT rules), one line each.
    func routerMappings() -> [String] {
        let rules = (try? Self.run(["ip", "netns", "exec", ns("r1"), "nft", "list", "chain", "inet", "filter", "prerouting_miniupnpd"])) ?? ""
        return rules.split(separator: "\n").filter { $0.contains("dnat") }.map(String.init)
    }

    /// The seconds left on each port mapping router 1 holds, as `upnpc -l` lists them from the
    /// home (the last number of each mapping's line).
    func routerLeases() -> [Int] {
        let list = (try? Self.run(["ip", "netns", "exec", ns("h1"), "upnpc", "-l"])) ?? ""
        return list.split(separator: "\n").filter { $0.contains("->") }.compactMap { line in
            line.split(separator: " ").last.flatMap { Int($0) }
        }
    }

    /// Each port mapping router 1 holds as `upnpc -l` lists it from the home: its external port
    /// and its description.
    func routerDescriptions() -> [(port: Int, description: String)] {
        let list = (try? Self.run(["ip", "netns", "exec", ns("h1"), "upnpc", "-l"])) ?? ""
        return list.split(separator: "\n").compactMap { line in
            let quoted = line.split(separator: "'", omittingEmptySubsequences: false)
            guard line.contains("->"), quoted.count >= 2,
                  let port = line.split(separator: " ").first(where: { $0.contains("->") })?.split(separator: "-").first.flatMap({ Int($0) })
            else { return nil }
            return (port, String(quoted[1]))
        }
    }

    /// What miniupnpd was asked so far, from its log: AddPortMapping requests (UPnP-IGD), PCP MAP
    /// requests, and refusals as a conflict (UPnP error 718).
    func routerRequests() -> (upnp: Int, pcp: Int, refusedAsConflict: Int) {
        let log = (try? String(contentsOfFile: "/run/\(prefix)-routers/miniupnpd.log", encoding: .utf8)) ?? ""
        let lines = log.split(separator: "\n")
        return (lines.filter { $0.contains("#AddPortMapping") }.count, lines.filter { $0.contains("PCP MAP: added mapping") }.count,
                lines.filter { $0.contains("ConflictInMappingEntry") }.count)
    }

    static func temporaryDirectory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("conf-reach-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    static func size(_ file: URL) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: file.path))?[.size] as? NSNumber)?.intValue ?? 0
    }

    /// Runs a command to its end (its output is small: read after it ends); its stdout, or a
    /// failure with its stderr.
    @discardableResult
    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        let output = out.fileHandleForReading.readDataToEndOfFile(), errors = err.fileHandleForReading.readDataToEndOfFile()
        guard process.terminationStatus == 0 else {
            throw TestFailure("\(arguments.joined(separator: " ")): \(String(decoding: errors, as: UTF8.self))")
        }
        return String(decoding: output, as: UTF8.self)
    }
}
