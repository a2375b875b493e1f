import ConfCore
import ConfCrypto
import ConfDriver
import ConfIO
import ConfRendezvous
import ConfWire
#if canImport(Glibc)
import Glibc
#endif

/// `conf rendezvous`: a standing rendezvous until SIGINT or SIGTERM.
struct RendezvousCommand {
    let context: CommandContext

    init(_ context: CommandContext) { self.context = context }

    func run() -> Int32 {
        let options: RendezvousConfig
        let endpoint: HostPort
        let perClient: Int
        var tls: (certificate: String, key: String)?
        // Its own certificate, made and kept as conf host's is, when none is given.
        var ownIdentity: ServerFingerprint?
        let secret: [UInt8]
        let stateDirectory: String
        let workerCount: Int, processCount: Int
        // --certificate acme: what to ask for, and where.
        let acme: ACMECertificates.Settings?
        let cores = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        do throws(CommandFailure) {
            options = try Self.config(context)
            endpoint = try context.listenEndpoint()
            tls = try Self.tls(context)
            guard let directory = context.invocation.value("state-dir") ?? RendezvousSecretFile.defaultDirectory(context.environment) else {
                throw context.usage("no $XDG_STATE_HOME or $HOME to keep the rendezvous secret in: give --state-dir DIR")
            }
            stateDirectory = directory
            do throws(RendezvousSecretFile.Problem) {
                secret = try RendezvousSecretFile.load(directory: directory)
            } catch {
                throw CommandFailure(.failure, code: "state-dir", error.description)
            }
            if tls == nil && !context.invocation.flag("no-tls") && RendezvousProcesses.inherited(context.environment) == nil {
                let identity = try HostCommand.identity(in: directory)
                tls = (identity.file, identity.file)
                ownIdentity = identity.fingerprint
            }
            perClient = try context.positiveInteger("max-connections-per-client", default: 64)
            for proxy in context.invocation.values("trusted-proxy") where !RendezvousServer.isAddress(proxy) {
                throw context.usage("--trusted-proxy '\(proxy)': give the load balancer's IP address as it connects to this rendezvous, like 10.0.0.1")
            }
            acme = try Self.acme(context, endpoint: endpoint, stateDirectory: directory, selfSigned: ownIdentity != nil ? tls?.certificate : nil)
            workerCount = try Self.workers(context, cores: cores, tls: tls != nil)
            processCount = try Self.processes(context, tls: tls != nil)
        } catch {
            Console.err("conf rendezvous: \(error.message)")
            return error.exitCode.rawValue
        }
        let quiet = context.invocation.flag("quiet")
        let inherited = RendezvousProcesses.inherited(context.environment)
        if inherited != nil { endWhenTheParentEnds() }
        // With several processes, every worker's courier: made here by the first, inherited by the others.
        var couriers: RendezvousCourierEnds?
        if inherited != nil {
            guard let ends = RendezvousCourierEnds.inherited(context.environment, workers: workerCount * processCount) else {
                Console.err("conf rendezvous: process \(inherited!.index) was started without its couriers: it is started by the first process of conf rendezvous --processes, not by hand")
                return ExitCode.failure.rawValue
            }
            couriers = ends
        } else if processCount > 1 {
            do throws(GLibError) {
                couriers = try RendezvousCourierEnds.make(workers: workerCount * processCount)
            } catch {
                Console.err("conf rendezvous: \(error.message)")
                return ExitCode.failure.rawValue
            }
        }
        DescriptorLimit.raiseToHard()  // Before any socket: a soft limit of 1024 is reached under load.
        let loop = EventLoop()
        let proxies = Set(context.invocation.values("trusted-proxy"))
        // Each worker holds its share of each client's connections and rooms (the kernel spreads a
        // client's connections over all the workers); a process's workers draw on one budget of
        // descriptors, as a room's connections all go to the worker that holds it, and on one of
        // rooms (its share of --max-rooms), as rooms are made where their request lands.
        let allWorkers = workerCount * processCount
        let budget = workerCount > 1 ? SharedBudget(capacity: DescriptorLimit.connectionBudget) : nil
        let roomBudget = workerCount > 1 ? SharedBudget(capacity: max(1, options.maxRooms / processCount)) : nil
        let limits = ConnectionAdmission.Limits(maxTotal: DescriptorLimit.connectionBudget,
                                                maxPerClient: max(1, (perClient + allWorkers - 1) / allWorkers),
                                                uncapped: Set(proxies.map { ClientAddress($0).client }))
        let participants = STUNParticipants()
        let makeServer = { @Sendable (config: RendezvousConfig, worker: Int, loop: EventLoop) -> RendezvousServer in
            var share = config
            if allWorkers > 1 {
                share.workers = WorkerShare(index: worker, count: allWorkers)
                share.maxRooms = max(1, config.maxRooms / allWorkers)
            }
            let core = Self.core(share, secret: secret)
            core.roomBudget = roomBudget
            let server = RendezvousServer(loop: loop, core: core, limits: limits, sharing: budget) { line in
                // Log lines quote what clients sent (room and participant names): escaped for the terminal.
                if !quiet { Console.err("rendezvous: " + (allWorkers > 1 ? "[\(worker)] " : "") + TerminalEscape.escape(line)) }
            }
            server.trustedProxies = proxies
            server.stunParticipants = participants
            if let partition = config.partition { server.metricsLabels = [("instance", "\(partition.index)")] }
            return server
        }
        var single: RendezvousServer?
        var workers: RendezvousWorkers?
        let stun: STUNService?
        let port: UInt16
        // Workers that share the port (SO_REUSEPORT) would share it with a second rendezvous of
        // this user too: the port's lock, taken before they listen, keeps that one out.
        var portLock: RendezvousPortLock?
        let lockPort = { (port: UInt16) throws(GLibError) in
            guard allWorkers > 1, inherited == nil, port != 0, portLock == nil else { return }
            portLock = try RendezvousPortLock(port: port, directory: RendezvousPortLock.directory(context.environment, fallback: stateDirectory))
        }
        do throws(GLibError) {
            // The other processes listen on the port the first one took.
            let shared = inherited.map { HostPort(host: endpoint.host, port: $0.port) } ?? endpoint
            (port, stun) = try RendezvousPorts.bind(loop: loop, endpoint: shared, shared: processCount > 1 || inherited != nil, quiet: quiet,
                                                   participants: participants) {
                endpoint, answersSTUN throws(GLibError) in
                var answering = options
                answering.answersSTUN = answersSTUN
                let config = answering
                if allWorkers == 1 {
                    single = makeServer(config, 0, loop)
                    return try single!.listen(on: endpoint, tls: tls)
                }
                try lockPort(endpoint.port)
                let layout = RendezvousWorkers.Layout(workers: workerCount, process: inherited?.index ?? 0, processes: processCount)
                workers = try RendezvousWorkers(layout: layout, loop: loop, endpoint: endpoint, couriers: couriers) { worker, loop in
                    makeServer(config, worker, loop)
                }
                try lockPort(workers!.port)
                return workers!.port
            }
        } catch {
            Console.err("conf rendezvous: " + ListenFailure.words(error, endpoint: endpoint))
            return ExitCode.failure.rawValue
        }
        var processes: RendezvousProcesses?
        // Signals are GLib's before anyone can know we listen (a supervisor may stop us at once).
        var stopping = false
        for signal in [SIGINT, SIGTERM] {
            loop.onSignal(signal) {
                if stopping { ProcessExit.exit(ExitCode.failure.rawValue) }
                stopping = true
                // A standing rendezvous stopping is most often a restart: rooms are not ended, so
                // participants keep their calls and take their seats back from the next process
                // (which finds the same secret in --state-dir).
                let stopped = {
                    if let processes { processes.stop(done: { loop.quit() }, loop: loop) } else { loop.quit() }
                }
                if let single { single.shutdown(reason: "server-shutdown", endRooms: false, done: stopped) }
                workers?.shutdown(reason: "server-shutdown", endRooms: false, done: stopped)
            }
        }
        let bound = HostPort(host: endpoint.host, port: port)
        let reachable = HostPort(host: acme.map { $0.identifier.description } ?? Self.reachableHost(endpoint.host), port: port)
        // The first lines, once the certificate to serve is known.
        let announce = { (certificate: ServedCertificate?) in
            Console.out("conf rendezvous listening on \(tls == nil ? "" : "https://")\(bound)")  // the first line: its last word is the address
            if let ownIdentity {
                // What its users put in their config: the address others reach it by, and its certificate.
                Console.out("# its users put these lines in their conf config (~/.config/conf/config):")
                Console.out("server = \(reachable)")
                if certificate?.kind != .acme { Console.out("fingerprint = \(ownIdentity)") }
            }
            if let certificate = certificate ?? Self.served(tls: tls, own: ownIdentity != nil) { Console.out("# " + TerminalEscape.escape(certificate.words)) }
        }
        var certificates: ACMECertificates?
        if var acme, let single {
            // The CA checks port 443 (tls-alpn-01, on this listener) or 80 (http-01, on a
            // responder of its own that serves nothing else).
            if port != LowPortMapping.https {
                do throws(GLibError) {
                    acme.http01 = try HTTP01Responder(loop: loop, endpoint: HostPort(host: endpoint.host, port: LowPortMapping.http))
                    acme.challenges = [.http01]
                } catch {
                    Console.err("rendezvous: --certificate acme: the certificate authority checks port 443 or 80, and this rendezvous listens on \(port) "
                                + "and cannot listen on 80 (\(error.message)): listen on 443 (--listen :443), or forward 443 or 80 to it")
                }
            }
            do throws(CommandFailure) {
                certificates = try ACMECertificates(loop: loop, server: single, settings: acme, log: { Console.err("rendezvous: " + TerminalEscape.escape($0)) })
            } catch {
                Console.err("conf rendezvous: \(error.message)")
                return error.exitCode.rawValue
            }
            certificates?.start(ready: announce)
        } else if inherited == nil {
            announce(nil)
        }
        if inherited == nil {
            if options.roomCreation.key == nil {
                Console.err("rendezvous: anyone who reaches this rendezvous can open rooms on it: give --room-key-file FILE to make rooms only for holders of a key")
            }
            if !quiet && allWorkers > 1 {
                Console.err("rendezvous: \(workerCount) workers" + (processCount > 1 ? " in each of \(processCount) processes" : "") + " share the port")
            }
            if processCount > 1 {
                processes = RendezvousProcesses(count: processCount, port: port, couriers: couriers!, environment: context.environment, loop: loop) { line in
                    Console.err("rendezvous: " + line)
                }
            }
        }
        loop.run()
        withExtendedLifetime((single, workers, processes, stun, portLock, certificates)) {}
        return ExitCode.ok.rawValue
    }

    /// `--workers N`: the cores by default; one when serving TLS (a worker cannot see which room
    /// an encrypted request is for, so it could not hand it to the worker that holds it).
    static func workers(_ context: CommandContext, cores: Int, tls: Bool) throws(CommandFailure) -> Int {
        guard context.setting("workers") != nil else { return tls ? 1 : cores }
        let count = try context.positiveInteger("workers", default: cores)
        guard count <= 64 else { throw context.usage("--workers \(count): at most 64 (this machine has \(cores) cores)") }
        if tls && count > 1 {
            throw context.usage("--workers \(count) with TLS: a worker cannot read an encrypted request to hand it to the worker "
                                + "holding its room; terminate TLS at a load balancer in front and give --no-tls (docs/DEPLOY.md), or use --workers 1")
        }
        return count
    }

    /// `--processes P`: for more connections than one process may hold descriptors for.
    static func processes(_ context: CommandContext, tls: Bool) throws(CommandFailure) -> Int {
        let count = try context.positiveInteger("processes", default: 1)
        guard count <= 16 else { throw context.usage("--processes \(count): at most 16") }
        if tls && count > 1 {
            throw context.usage("--processes \(count) with TLS: a process cannot read an encrypted request to hand it to the one "
                                + "holding its room; terminate TLS at a load balancer in front and give --no-tls (docs/DEPLOY.md)")
        }
        return count
    }

    static func config(_ context: CommandContext) throws(CommandFailure) -> RendezvousConfig {
        var config = RendezvousConfig()
        config.roomIdleTimeout = .seconds(try context.positiveInteger("room-idle", default: 600))
        config.roomsPerMinutePerAddress = try context.positiveInteger("rooms-per-minute", default: 30)
        // A network (a /24, a /48) may create four clients' worth.
        config.roomsPerMinutePerNetwork = 4 * config.roomsPerMinutePerAddress
        config.maxRooms = try context.positiveInteger("max-rooms", default: 20_000)
        config.awayGrace = .seconds(try context.positiveInteger("resume-grace", default: 30))
        config.knockTimeout = .seconds(try context.positiveInteger("knock-timeout", default: 60))
        if let text = context.setting("instance") {
            guard let partition = RoomPartition.parse(text) else {
                throw context.usage("--instance '\(text)': give K/N, this instance's index from 0 and how many there are (at most "
                                    + "\(RoomPartition.maximumCount)), like 0/3")
            }
            config.partition = partition
        }
        if let path = context.setting("room-key-file") {
            do throws(RendezvousSecretFile.Problem) {
                let (key, made) = try RoomKeyFile.load(path)
                if made { Console.err("rendezvous: made a new room key in \(path): its users put room-key = (the key) in their conf config") }
                config.roomCreation = RoomCreationPolicy(key: key, holder: .operatorOnly)
            } catch {
                throw CommandFailure(.failure, code: "room-key", "--room-key-file: \(error.description)")
            }
        }
        for text in context.invocation.values("metrics-from") {
            guard let range = AddressRange(text) else {
                throw context.usage("--metrics-from '\(text)': give a network as ADDRESS/BITS, like 10.0.0.0/8 or 2001:db8::/32, or one address")
            }
            config.metricsFrom.append(range)
        }
        for stun in context.invocation.values("stun") {
            guard let endpoint = HostPort.server(stun, defaultPort: HostPort.stunPort) else {
                throw context.usage("--stun '\(stun)': give HOST:PORT, like stun.example.org:3478")
            }
            config.iceServers.append(IceServer(urls: ["stun:\(endpoint)"]))
        }
        for option in context.invocation.values("turn") {
            guard let turn = TURNOption(option) else { throw context.usage("--turn '\(option)': \(TURNOption.form)") }
            let url = switch turn.transport {
            case .udp: "turn:\(turn.endpoint)"
            case .tcp: "turn:\(turn.endpoint)?transport=tcp"
            case .tls: "turns:\(turn.endpoint)?transport=tcp"
            }
            config.iceServers.append(IceServer(urls: [url], username: turn.username, credential: turn.password))
        }
        return config
    }

    /// A core keyed with HMAC-SHA256 under `secret` (resume tokens, derived pins), its clock
    /// anchored to Unix time now.
    static func core(_ config: RendezvousConfig, secret: [UInt8]) -> RendezvousCore {
        let hmac = HMACSHA256(key: secret)
        return RendezvousCore(config: config, random: KernelRandom(), key: ServerKey(mac: { hmac.authenticate($0) }),
                              wallClock: WallClockAnchor(instant: SystemClock().now(), unixSeconds: Int64(time(nil))))
    }

    /// The host its users reach it by: the address it listens on, or, listening on every
    /// interface, this machine's address on its default route.
    static func reachableHost(_ listening: String) -> String {
        guard listening == "0.0.0.0" || listening == "::" else { return listening }
        return DefaultRoute.current()?.localAddress ?? "THIS-MACHINE"
    }

    /// `--certificate acme`'s settings, checked; nil for `self-signed`. It replaces the
    /// rendezvous's own self-signed certificate, so not with --tls-cert or --no-tls (`selfSigned`
    /// false). `identifier` is for a domain given; else the caller finds the address.
    static func acmeOptions(_ context: CommandContext, selfSigned: Bool) throws(CommandFailure) -> (directory: String, caFile: String?, domain: String?)? {
        guard context.setting("certificate") == "acme" else {
            for option in ["acme-directory", "acme-ca", "domain"] where context.invocation.value(option) != nil {
                throw context.usage("--\(option) goes with --certificate acme")
            }
            return nil
        }
        guard selfSigned else {
            throw context.usage("--certificate acme replaces the built-in rendezvous's own certificate: not with --tls-cert, --no-tls or --server")
        }
        let directory = context.setting("acme-directory") ?? ACMEIssuance.letsEncrypt
        guard directory.hasPrefix("https://") else { throw context.usage("--acme-directory '\(directory)': give the directory's https:// URL") }
        if let ca = context.setting("acme-ca"), access(ca, R_OK) != 0 {
            throw context.usage("--acme-ca \(ca): cannot read the file (\(String(cString: strerror(errno))))")
        }
        let domain = context.setting("domain")
        if let domain, !isDomainName(domain) { throw context.usage("--domain '\(domain)': give a DNS name, like call.example.org") }
        return (directory, context.setting("acme-ca"), domain?.lowercased())
    }

    /// `--certificate acme` for a standing rendezvous: for --domain, else the address it listens
    /// on (or, on every interface, the default route's).
    /// `selfSigned`: the rendezvous's own certificate file, which it serves until then.
    static func acme(_ context: CommandContext, endpoint: HostPort, stateDirectory: String, selfSigned: String?) throws(CommandFailure) -> ACMECertificates.Settings? {
        guard let options = try acmeOptions(context, selfSigned: selfSigned != nil), let selfSigned else { return nil }
        let identifier: ACMEIdentifier
        if let domain = options.domain {
            identifier = .dns(domain)
        } else {
            let host = reachableHost(endpoint.host)
            guard IPv4Address(host) != nil || host.contains(":") else {
                throw context.usage("--certificate acme: no public address to ask for (listening on \(endpoint.host)): give --listen ADDRESS:443 or --domain NAME")
            }
            identifier = .ip(host)
        }
        return ACMECertificates.Settings(directory: options.directory, caFile: options.caFile, identifier: identifier, stateDirectory: stateDirectory,
                                         fallbackFile: selfSigned)
    }

    /// Which certificate is served without ACME: the rendezvous's own, or the operator's file.
    static func served(tls: (certificate: String, key: String)?, own: Bool) -> ServedCertificate? {
        if own { return ServedCertificate(kind: .selfSigned) }
        guard let tls else { return nil }
        return ServedCertificate(kind: .file, expires: CertificateChainSummary(pemFile: tls.certificate)?.notAfter)
    }

    /// A DNS name a CA can issue for: labels of letters, digits and inner hyphens, at least two.
    static func isDomainName(_ text: String) -> Bool {
        let labels = text.split(separator: ".", omittingEmptySubsequences: false)
        return text.utf8.count <= 253 && labels.count >= 2 && labels.allSatisfy { label in
            (1...63).contains(label.utf8.count) && label.first != "-" && label.last != "-"
                && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
        } && labels.last!.contains(where: \.isLetter)
    }

    /// `--certificate FILE`: a PEM file holding the certificate (chain) and its key, checked; nil
    /// for `self-signed` and `acme`.
    static func certificateFile(_ context: CommandContext) throws(CommandFailure) -> String? {
        guard let value = context.setting("certificate"), value != "self-signed", value != "acme" else { return nil }
        guard access(value, R_OK) == 0 else {
            throw context.usage("\(context.origin("certificate")) '\(value)': give self-signed, acme, or a PEM file holding a certificate and its key "
                                + "(cannot read it: \(String(cString: strerror(errno))))")
        }
        do {
            try PEMKeyPair.check(certificateFile: value, keyFile: value)
        } catch {
            throw context.usage("\(context.origin("certificate")) \(value): \(error) — give one PEM file with the certificate (chain) and its key")
        }
        return value
    }

    static func tls(_ context: CommandContext) throws(CommandFailure) -> (certificate: String, key: String)? {
        let cert = context.setting("tls-cert"), key = context.setting("tls-key")
        if context.invocation.flag("no-tls"), cert != nil || key != nil {
            throw context.usage("--no-tls and --tls-cert/--tls-key: give one or the other")
        }
        if let file = try certificateFile(context) {
            guard cert == nil, key == nil else { throw context.usage("--certificate FILE and --tls-cert/--tls-key: give one or the other") }
            guard !context.invocation.flag("no-tls") else { throw context.usage("--no-tls and --certificate FILE: give one or the other") }
            return (file, file)
        }
        switch (cert, key) {
        case (nil, nil): return nil
        case (let cert?, let key?):
            for (path, what) in [(cert, "--tls-cert"), (key, "--tls-key")] where access(path, R_OK) != 0 {
                throw context.usage("\(what) \(path): cannot read the file (\(String(cString: strerror(errno))))")
            }
            do {
                try PEMKeyPair.check(certificateFile: cert, keyFile: key)
            } catch {
                throw context.usage("--tls-cert/--tls-key: \(error) — give the certificate and the private key made with it")
            }
            return (cert, key)
        default:
            throw context.usage("--tls-cert and --tls-key go together: give both")
        }
    }
}
