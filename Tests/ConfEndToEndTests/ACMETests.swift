import Foundation
import Testing

/// `conf rendezvous --certificate acme` against pebble, Let's Encrypt's own ACME test server, in a
/// network namespace the test makes: the rendezvous at 11.0.0.2:443 proves that address by
/// tls-alpn-01 and serves a certificate that clients trusting pebble's root accept; a restart
/// reuses it (pebble sees no second order); with the CA gone it serves its own certificate and
/// says why, and the back-off it keeps stops the next start from asking at once.
@Suite(.serialized, .enabled(if: NetworkNamespaces.available, "needs root and network namespaces (ip netns)"))
struct ACMETests {
    /// pebble in `namespace` at 11.0.0.1:14000 (management at 15000), validating on ports 443
    /// and 80, its own HTTPS from a CA the test makes (`caFile`), without its validation sleeps.
    final class Pebble {
        let process = Process()
        let directory: URL
        let log: URL
        var caFile: String { directory.appendingPathComponent("ca.pem").path }
        static let url = "https://11.0.0.1:14000/dir"

        /// `validity`: the certificates' life in seconds (pebble's default is five years).
        init(namespace: String, directory: URL, validity: Int? = nil) throws {
            self.directory = directory
            log = directory.appendingPathComponent("pebble.log")
            let path = { (name: String) in directory.appendingPathComponent(name).path }
            for arguments in [
                ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", path("ca.key"), "-out", path("ca.pem"),
                 "-days", "2", "-subj", "/CN=conf test ACME CA"],
                ["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", path("pebble.key"), "-out", path("pebble.csr"),
                 "-subj", "/CN=pebble"],
                ["x509", "-req", "-in", path("pebble.csr"), "-CA", path("ca.pem"), "-CAkey", path("ca.key"), "-CAcreateserial", "-out", path("pebble.pem"),
                 "-days", "2", "-extfile", path("ext.cnf")],
            ] {
                try "subjectAltName=IP:11.0.0.1\n".write(toFile: path("ext.cnf"), atomically: true, encoding: .utf8)
                try ACMETests.run("/usr/bin/openssl", arguments)
            }
            let config = """
            {"pebble": {"listenAddress": "11.0.0.1:14000", "managementListenAddress": "11.0.0.1:15000", "certificate": "\(path("pebble.pem"))",
             "privateKey": "\(path("pebble.key"))", "httpPort": 80, "tlsPort": 443, "ocspResponderURL": "", "externalAccountBindingRequired": false\(validity.map { ", \"certificateValidityPeriod\": \($0)" } ?? "")}}
            """
            try config.write(toFile: path("pebble.json"), atomically: true, encoding: .utf8)
            FileManager.default.createFile(atPath: log.path, contents: nil)
            process.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
            process.arguments = ["netns", "exec", namespace, "/usr/bin/pebble", "-config", path("pebble.json")]
            process.environment = ["PEBBLE_VA_NOSLEEP": "1", "PATH": "/usr/bin:/bin"]
            let handle = try FileHandle(forWritingTo: log)
            process.standardOutput = handle
            process.standardError = handle
            try process.run()
            guard ConfProcess.waitUntil(timeout: .seconds(15), { logText.contains("Listening on: 11.0.0.1:14000") }) else {
                throw TestFailure("pebble did not start: \(logText)")
            }
        }

        var logText: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

        /// pebble's root (made when it started) in a file of `directory`: what a client trusts.
        func root(namespace: String) throws -> String {
            let path = directory.appendingPathComponent("root.pem").path
            try ACMETests.run("/usr/bin/curl", ["-sS", "--cacert", caFile, "-o", path, "https://11.0.0.1:15000/roots/0"], namespace: namespace)
            return path
        }
        /// Orders made (a POST that pebble refused, as it does 5 % of nonces, made none).
        var orders: Int { logText.components(separatedBy: "Added order").count - 1 }

        func stop() {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }

        deinit { if process.isRunning { stop() } }
    }

    /// `executable` run (in `namespace`): its stdout, or a failure with its stderr.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String], namespace: String? = nil) throws -> String {
        try HomeRouters.run((namespace.map { ["ip", "netns", "exec", $0] } ?? []) + [executable] + arguments)
    }

    /// A namespace with 11.0.0.1 (the CA) and 11.0.0.2 (the rendezvous) on its loopback.
    static func namespace() throws -> String {
        let name = "cacme\(getpid() % 10_000)"
        try? NetworkChangeTests.ip(["netns", "del", name])
        try NetworkChangeTests.ip(["netns", "add", name])
        try NetworkChangeTests.ip(["-n", name, "link", "set", "lo", "up"])
        for address in ["11.0.0.1/32", "11.0.0.2/32"] { try NetworkChangeTests.ip(["-n", name, "addr", "add", address, "dev", "lo"]) }
        return name
    }

    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("conf-acme-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return directory
    }

    /// A namespace (`namespace()`), a private directory, and pebble running there. `hosts`: the
    /// namespace's own /etc/hosts, which `ip netns exec` puts in place for what it starts (pebble
    /// too, so it is written first).
    static func pebbleWorld(validity: Int? = nil, hosts: String? = nil) throws -> (String, URL, Pebble) {
        let namespace = try Self.namespace(), directory = try temporaryDirectory()
        if let hosts {
            try FileManager.default.createDirectory(atPath: "/etc/netns/\(namespace)", withIntermediateDirectories: true)
            try hosts.write(toFile: "/etc/netns/\(namespace)/hosts", atomically: true, encoding: .utf8)
        }
        return (namespace, directory, try Pebble(namespace: namespace, directory: directory, validity: validity))
    }

    static func tearDown(_ namespace: String, _ directory: URL, _ pebble: Pebble) {
        pebble.stop()
        try? NetworkChangeTests.ip(["netns", "del", namespace])
        try? FileManager.default.removeItem(at: directory)
        try? FileManager.default.removeItem(atPath: "/etc/netns/\(namespace)")
    }

    static func rendezvous(namespace: String, pebble: Pebble, state: URL, listen: String = "11.0.0.2:443", extra: [String] = []) throws -> ConfProcess {
        try ConfProcess(["rendezvous", "--listen", listen, "--certificate", "acme", "--acme-directory", Pebble.url,
                         "--acme-ca", pebble.caFile, "--state-dir", state.path] + extra, namespace: namespace)
    }

    @Test func aRendezvousGetsACertificateThatClientsTrustAndKeepsIt() throws {
        #expect(FileManager.default.isExecutableFile(atPath: "/usr/bin/pebble"), "pebble is not installed: scripts/install-deps --test installs it")
        let (namespace, directory, pebble) = try Self.pebbleWorld()
        defer { Self.tearDown(namespace, directory, pebble) }
        let state = directory.appendingPathComponent("state")

        let first = try Self.rendezvous(namespace: namespace, pebble: pebble, state: state)
        let line = first.waitForOutput(containing: "# certificate:", timeout: .seconds(60))
        #expect(line?.hasPrefix("# certificate: acme, expires ") == true, "\(first.stdout)\n\(first.stderr)\n\(pebble.logText)")
        // Trusted by the certificate: no fingerprint line to hand out.
        #expect(first.stdout.contains("server = 11.0.0.2:443") && !first.stdout.contains("fingerprint ="), "\(first.stdout)")
        #expect(pebble.orders == 1)
        #expect(pebble.logText.contains("authz") && pebble.logText.contains("set VALID"), "\(pebble.logText)")

        // A client that trusts pebble's root and nothing else: curl, and conf itself without a fingerprint.
        let root = try pebble.root(namespace: namespace)
        try Self.run("/usr/bin/curl", ["-sS", "--fail", "--cacert", root, "https://11.0.0.2/v1/health"], namespace: namespace)
        let host = try ConfProcess(["host", "--server", "11.0.0.2:443", "--ca", root, "--no-audio", "--no-video", "--json", "--duration", "1"],
                                   namespace: namespace)
        #expect(host.waitForEvent("room", timeout: .seconds(20)) != nil, "\(host.stderr)")
        _ = host.waitForExit(timeout: .seconds(20))
        // The rendezvous's own certificate is not what a client trusting only pebble's root accepts.
        #expect(throws: TestFailure.self) {
            try Self.run("/usr/bin/curl", ["-sS", "--fail", "--cacert", pebble.caFile, "https://11.0.0.2/v1/health"], namespace: namespace)
        }
        first.signal(SIGTERM)
        _ = first.waitForExit(timeout: .seconds(10))

        // A restart serves the kept certificate and asks pebble for nothing.
        let second = try Self.rendezvous(namespace: namespace, pebble: pebble, state: state)
        #expect(second.waitForOutput(containing: "# certificate: acme, expires ", timeout: .seconds(20)) == line, "\(second.stdout)\(second.stderr)")
        try Self.run("/usr/bin/curl", ["-sS", "--fail", "--cacert", root, "https://11.0.0.2/v1/health"], namespace: namespace)
        #expect(pebble.orders == 1, "a second order: \(pebble.logText)")
        second.signal(SIGTERM)
        _ = second.waitForExit(timeout: .seconds(10))
        pebble.stop()
    }

    @Test func withoutTheCAItServesItsOwnCertificateSaysWhyAndBacksOff() throws {
        let (namespace, directory, pebble) = try Self.pebbleWorld()
        defer { Self.tearDown(namespace, directory, pebble) }
        pebble.stop()
        let state = directory.appendingPathComponent("state")

        let first = try Self.rendezvous(namespace: namespace, pebble: pebble, state: state)
        let line = first.waitForOutput(containing: "# certificate:", timeout: .seconds(60))
        #expect(line?.hasPrefix("# certificate: self-signed (cannot reach the certificate authority") == true, "\(first.stdout)\n\(first.stderr)")
        // Its own certificate, so the fingerprint line is there again.
        #expect(first.stdout.contains("fingerprint = "), "\(first.stdout)")
        first.signal(SIGTERM)
        _ = first.waitForExit(timeout: .seconds(10))
        let kept = try JSONSerialization.jsonObject(with: Data(contentsOf: state.appendingPathComponent("acme-state.json"))) as? [String: Any]
        #expect(kept?["failures"] as? Int == 1, "\(String(describing: kept))")
        let next = (kept?["next_attempt"] as? Double) ?? 0
        #expect(next > Date().timeIntervalSince1970 + 30, "the next attempt at \(next)")

        // The next start waits out the back-off: it says so and does not ask.
        let second = try Self.rendezvous(namespace: namespace, pebble: pebble, state: state)
        let waiting = second.waitForOutput(containing: "# certificate:", timeout: .seconds(20))
        #expect(waiting?.contains("self-signed (the last ACME order failed") == true && waiting?.contains("the next is tried at") == true,
                "\(second.stdout)\(second.stderr)")
        #expect(!second.stderr.contains("asking https://11.0.0.1:14000/dir"), "\(second.stderr)")
        second.signal(SIGTERM)
        _ = second.waitForExit(timeout: .seconds(10))
    }

    /// The DOM headless Chromium (in `namespace`) makes of `url`, its NSS database trusting the CA
    /// in `root` (none: the system's alone).
    static func browserPage(_ url: String, trusting root: String?, namespace: String, directory: URL) throws -> String {
        let home = directory.appendingPathComponent("browser-home-\(root == nil ? "plain" : "trusting")")
        let database = home.appendingPathComponent(".pki/nssdb")
        try FileManager.default.createDirectory(at: database, withIntermediateDirectories: true)
        try run("/usr/bin/certutil", ["-d", "sql:" + database.path, "-N", "--empty-password"])
        if let root { try run("/usr/bin/certutil", ["-d", "sql:" + database.path, "-A", "-t", "C,,", "-n", "pebble root", "-i", root]) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        process.arguments = ["netns", "exec", namespace, "/usr/bin/env", "HOME=" + home.path, HeadlessBrowser.path, "--headless=new", "--no-sandbox",
                             "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--user-data-dir=" + home.appendingPathComponent("profile").path,
                             "--timeout=10000", "--dump-dom", url]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let dom = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return dom
    }

    /// `conf host --certificate acme` in home 1, asking pebble, its state in `directory`.
    static func acmeHost(homes: HomeRouters, pebble: Pebble, directory: URL) throws -> ConfProcess {
        try ConfProcess(["host", "--as", "ann", "--json", "--no-audio", "--no-video", "--certificate", "acme",
                         "--acme-directory", Pebble.url, "--acme-ca", pebble.caFile],
                        environment: ["CONF_PORT_MAPPING": "on", "XDG_STATE_HOME": directory.appendingPathComponent("state").path],
                        namespace: homes.ns("h1"))
    }

    /// The serial number of the certificate 11.0.0.2:443 serves now.
    static func servedSerial(namespace: String) -> String {
        let serial = try? run("/bin/sh", ["-c", "openssl s_client -connect 11.0.0.2:443 </dev/null 2>/dev/null | openssl x509 -noout -serial"],
                              namespace: namespace)
        return serial?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
    }

    /// Certificates of 40 s: renewed at half their life while a participant stays connected
    /// through it, the new one served to the next connection.
    @Test func aCertificateIsRenewedWhileAParticipantStaysConnected() throws {
        let (namespace, directory, pebble) = try Self.pebbleWorld(validity: 40)
        defer { Self.tearDown(namespace, directory, pebble) }
        let root = try pebble.root(namespace: namespace)
        let server = try Self.rendezvous(namespace: namespace, pebble: pebble, state: directory.appendingPathComponent("state"))
        defer { server.signal(SIGKILL) }
        #expect(server.waitForOutput(containing: "# certificate: acme", timeout: .seconds(30)) != nil, "\(server.stdout)\(server.stderr)")
        let first = Self.servedSerial(namespace: namespace)
        #expect(first.hasPrefix("serial="), "\(first)")
        let host = try ConfProcess(["host", "--server", "11.0.0.2:443", "--ca", root, "--no-audio", "--no-video", "--json"], namespace: namespace)
        defer { host.signal(SIGKILL) }
        #expect(host.waitForEvent("joined", timeout: .seconds(20)) != nil, "\(host.stderr)")

        #expect(ConfProcess.waitUntil(timeout: .seconds(45)) { pebble.orders >= 2 }, "no renewal: \(server.stderr)")
        var renewed = first
        #expect(ConfProcess.waitUntil(timeout: .seconds(10)) { renewed = Self.servedSerial(namespace: namespace); return renewed != first && !renewed.isEmpty },
                "still \(first)")
        // The participant's connection went on through it: no loss, no reconnection, still counted.
        #expect(host.events(ofType: "rendezvous-lost").isEmpty && host.events(ofType: "left").isEmpty, "\(host.stdout)")
        let answer = try Self.run("/usr/bin/curl", ["-sS", "--cacert", root, "https://11.0.0.2/v1/health"], namespace: namespace)
        #expect(answer.contains(#""participants":1"#), "\(answer)")
    }

    /// conf host behind a home router that forwards port 443 when asked: the CA reaches the
    /// built-in rendezvous through the router, the link names the router's address without a
    /// fingerprint, and a guest who trusts pebble's root joins with it.
    @Test(.enabled(if: HomeRouters.toolsPresent, "needs miniupnpd and nft"))
    func aHostBehindARouterThatForwards443GetsACertificateAndItsLinkNeedsNoFingerprint() throws {
        let homes = try HomeRouters(["EXT_PORTS": "1-65535"])
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let pebble = try Pebble(namespace: homes.ns("inet"), directory: directory)
        defer { pebble.stop() }
        let root = try pebble.root(namespace: homes.ns("inet"))

        let host = try Self.acmeHost(homes: homes, pebble: pebble, directory: directory)
        let room = try #require(host.waitForEvent("room", timeout: .seconds(60)), "\(host.stderr)\n\(pebble.logText)")
        let certificate = room["certificate"] as? [String: Any]
        #expect(certificate?["kind"] as? String == "acme", "\(room)\n\(host.stderr)")
        let link = try #require(room["link"] as? String)
        #expect(link.hasPrefix("https://11.0.0.2/#room=") && !link.contains("fp="), "\(link)")
        #expect(homes.routerMappings().contains { $0.contains("443") }, "\(homes.routerMappings())")

        let guest = try ConfProcess(["join", link, "--ca", root, "--as", "bob", "--json", "--no-audio", "--no-video", "--duration", "5"],
                                    namespace: homes.ns("h2"))
        #expect(guest.waitForEvent("joined", timeout: .seconds(20)) != nil, "\(guest.stderr)")
        #expect(guest.waitForEvent("peer-connected", timeout: .seconds(20)) != nil, "\(guest.stdout)\(guest.stderr)")
        _ = guest.waitForExit(timeout: .seconds(20))
        // A browser on the internet that trusts pebble's root (in its NSS database, no
        // --ignore-certificate-errors) reads the rendezvous at the link's address; the same
        // browser without that root gets Chromium's certificate error instead.
        if HeadlessBrowser.available && FileManager.default.isExecutableFile(atPath: "/usr/bin/certutil") {
            let health = "https://11.0.0.2/v1/health"
            let trusting = try Self.browserPage(health, trusting: root, namespace: homes.ns("inet"), directory: directory)
            #expect(trusting.contains(#""status":"ok""#), "\(trusting.prefix(400))")
            let untrusting = try Self.browserPage(health, trusting: nil, namespace: homes.ns("inet"), directory: directory)
            #expect(!untrusting.contains(#""status":"ok""#), "\(untrusting.prefix(400))")
        }

        host.signal(SIGTERM)
        _ = host.waitForExit(timeout: .seconds(15))
        // Port 443 is given back with the rest.
        #expect(homes.routerMappings().isEmpty, "\(homes.routerMappings())")

        // The next conf host serves the kept certificate: pebble sees no second order.
        let next = try Self.acmeHost(homes: homes, pebble: pebble, directory: directory)
        let again = try #require(next.waitForEvent("room", timeout: .seconds(30)), "\(next.stderr)")
        #expect((again["certificate"] as? [String: Any])?["kind"] as? String == "acme", "\(again)")
        #expect(pebble.orders == 1, "\(pebble.logText)")
        next.signal(SIGTERM)
        _ = next.waitForExit(timeout: .seconds(15))
    }

    /// A rendezvous on another port than 443 answers http-01 on port 80 with a responder that
    /// serves the challenge and nothing else.
    @Test func aRendezvousOnAnotherPortAnswersHTTP01OnPort80() throws {
        let (namespace, directory, pebble) = try Self.pebbleWorld()
        defer { Self.tearDown(namespace, directory, pebble) }
        let server = try Self.rendezvous(namespace: namespace, pebble: pebble, state: directory.appendingPathComponent("state"), listen: "11.0.0.2:7373")
        defer { server.signal(SIGKILL) }
        #expect(server.waitForOutput(containing: "# certificate: acme", timeout: .seconds(30)) != nil, "\(server.stdout)\(server.stderr)\(pebble.logText)")
        #expect(server.stderr.contains("http-01 on port 80"), "\(server.stderr)")
        let root = try pebble.root(namespace: namespace)
        try Self.run("/usr/bin/curl", ["-sS", "--fail", "--cacert", root, "https://11.0.0.2:7373/v1/health"], namespace: namespace)
        // Port 80 serves no part of the rendezvous: its API answers 404 there, in clear or not at all.
        #expect(throws: TestFailure.self) { try Self.run("/usr/bin/curl", ["-sS", "--fail", "http://11.0.0.2/v1/health"], namespace: namespace) }
    }

    /// `--domain`: a name the namespace resolves (its own /etc/hosts, which `ip netns exec` puts
    /// in place for pebble and conf alike) is proven and served.
    @Test func aStandingRendezvousWithADomainName() throws {
        let (namespace, directory, pebble) = try Self.pebbleWorld(hosts: "127.0.0.1 localhost\n11.0.0.2 call.conf.test\n")
        defer { Self.tearDown(namespace, directory, pebble) }
        let server = try Self.rendezvous(namespace: namespace, pebble: pebble, state: directory.appendingPathComponent("state"),
                                         extra: ["--domain", "call.conf.test"])
        defer { server.signal(SIGKILL) }
        #expect(server.waitForOutput(containing: "# certificate: acme", timeout: .seconds(30)) != nil, "\(server.stdout)\(server.stderr)\(pebble.logText)")
        #expect(server.stdout.contains("server = call.conf.test:443"), "\(server.stdout)")
        let root = try pebble.root(namespace: namespace)
        try Self.run("/usr/bin/curl", ["-sS", "--fail", "--cacert", root, "https://call.conf.test/v1/health"], namespace: namespace)
        // The certificate names the domain, not the address.
        #expect(throws: TestFailure.self) {
            try Self.run("/usr/bin/curl", ["-sS", "--fail", "--cacert", root, "https://11.0.0.2/v1/health"], namespace: namespace)
        }
    }

    /// A router that maps only ports 1024-65535 (OpenWrt's default): the host serves its own
    /// certificate, says why, and the call goes on as before.
    @Test(.enabled(if: HomeRouters.toolsPresent, "needs miniupnpd and nft"))
    func aRouterThatRefuses443LeavesTheOwnCertificateWithTheReason() throws {
        let homes = try HomeRouters()
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let pebble = try Pebble(namespace: homes.ns("inet"), directory: directory)
        defer { pebble.stop() }
        let host = try Self.acmeHost(homes: homes, pebble: pebble, directory: directory)
        let room = try #require(host.waitForEvent("room", timeout: .seconds(60)), "\(host.stderr)")
        let certificate = room["certificate"] as? [String: Any]
        #expect(certificate?["kind"] as? String == "self-signed", "\(room)")
        #expect((certificate?["reason"] as? String)?.contains("port 443") == true, "\(room)")
        #expect((room["link"] as? String)?.contains("fp=") == true && (room["link"] as? String)?.contains("11.0.0.2:7373") == true, "\(room)")
        #expect(pebble.orders == 0)
        host.signal(SIGTERM)
        _ = host.waitForExit(timeout: .seconds(15))
    }

    /// `--certificate FILE`: the operator's own PEM (certificate and key in one file), served by
    /// conf rendezvous and by conf host's own rendezvous, which say so; the host's link names it.
    @Test func anOperatorsCertificateFileIsServedAndSaidSo() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (cert, key) = try TLSTests.makeCertificate(in: directory, ip: "127.0.0.1")
        let file = directory.appendingPathComponent("both.pem").path
        try (String(contentsOfFile: cert, encoding: .utf8) + String(contentsOfFile: key, encoding: .utf8)).write(toFile: file, atomically: true, encoding: .utf8)
        let server = try ConfProcess(["rendezvous", "--listen", "127.0.0.1:0", "--certificate", file, "--state-dir", directory.appendingPathComponent("state").path])
        defer { server.signal(SIGKILL) }
        let line = server.waitForOutput(containing: "# certificate:")
        #expect(line?.hasPrefix("# certificate: file, expires ") == true, "\(server.stdout)\(server.stderr)")
        #expect(!server.stdout.contains("fingerprint ="), "\(server.stdout)")
        let host = try ConfProcess(["host", "--listen", "127.0.0.1:0", "--certificate", file, "--no-audio", "--no-video", "--json", "--duration", "0.5"],
                                   environment: ["XDG_STATE_HOME": directory.appendingPathComponent("host-state").path])
        let room = try #require(host.waitForEvent("room", timeout: .seconds(15)), "\(host.stderr)")
        #expect((room["certificate"] as? [String: Any])?["kind"] as? String == "file", "\(room)")
        #expect((room["link"] as? String)?.contains("&fp=") == true, "\(room)")
        #expect(host.waitForExit(timeout: .seconds(15)) == 0, "\(host.stderr)")
        // What is not a certificate and key is refused before anything listens.
        let refused = try ConfProcess(["rendezvous", "--listen", "127.0.0.1:0", "--certificate", cert])
        #expect(refused.waitForExit(timeout: .seconds(10)) == 2, "\(refused.stderr)")
        #expect(refused.stderr.contains("--certificate"), "\(refused.stderr)")
    }
}
