import ConfCall
import ConfCore
import ConfCrypto
import ConfDriver
import ConfIO
import ConfRendezvous
import ConfWeb
import ConfWire

/// `conf host`: creates a room (on an embedded rendezvous unless one is configured), prints how to
/// join it, and joins it.
struct HostCommand {
    let context: CommandContext

    init(_ context: CommandContext) { self.context = context }

    func run() -> Int32 {
        let reporter = context.reporter()
        let request: CreateRoomRequest, standing: RendezvousAddress?, ca: String?, listen: HostPort, settings: ParticipantRun.Settings
        var identity: (file: String, fingerprint: ServerFingerprint)?, standingFingerprint: ServerFingerprint?
        var roomKey: RoomKey?
        var acmeOptions: (directory: String, caFile: String?, domain: String?)?
        // --certificate FILE: the operator's certificate instead of the rendezvous's own.
        var ownFile = false
        do throws(CommandFailure) {
            let roomName = context.invocation.value("name") ?? "conf"
            if let problem = Names.problem(withRoomName: roomName) { throw context.usage("--name: \(problem)") }
            let resolutionText = context.setting("resolution") ?? Resolution.default.rawValue
            guard let resolution = Resolution(rawValue: resolutionText) else {
                throw context.usage("\(context.origin("resolution")) '\(resolutionText)': use one of \(ConfProgram.resolutions.joined(separator: ", "))")
            }
            request = CreateRoomRequest(name: roomName, resolution: resolution)
            standing = try context.rendezvousAddress()
            ca = try context.caFile()
            listen = try context.listenEndpoint()
            if let file = try RendezvousCommand.certificateFile(context) {
                guard standing == nil, !context.invocation.flag("no-tls") else {
                    throw context.usage("--certificate FILE is for conf host's own rendezvous: not with --server or --no-tls")
                }
                do {
                    identity = (file, try RendezvousIdentity.fingerprint(ofPEMFile: file))
                } catch {
                    throw context.usage("\(context.origin("certificate")) \(file): \(error)")
                }
                ownFile = true
            } else if standing == nil && !context.invocation.flag("no-tls") {
                identity = try Self.identity(context)
            }
            standingFingerprint = try context.fingerprint()
            acmeOptions = try RendezvousCommand.acmeOptions(context, selfSigned: standing == nil && identity != nil)
            if let text = context.setting("room-key") {
                guard standing != nil else { throw context.usage("\(context.origin("room-key")) is for a standing rendezvous (--server): this conf host makes its own") }
                guard let key = RoomKey(text) else { throw context.usage("\(context.origin("room-key")): \(RoomKey.problem)") }
                roomKey = key
            }
            // Last: after every option is checked, it opens the sound server.
            var parsed = try ParticipantRun.Settings(context)
            parsed.call.leavesWhenNobodyConnects = false  // the host keeps its room open
            settings = parsed
        } catch {
            reporter.failure(error)
            return error.exitCode.rawValue
        }

        DescriptorLimit.raiseToHard()  // Before any socket: a soft limit of 1024 is reached under load.
        let loop = EventLoop()
        ParticipantRun.clearLeftoverMappings(context, portMapping: settings.call.portMapping, loop: loop)
        var exitCode = ExitCode.ok
        var embedded: RendezvousServer?
        var stun: STUNService?
        let address: RendezvousAddress
        var embeddedPort: UInt16?
        if let standing {
            address = standing
        } else {
            // The embedded rendezvous hands the host's own --stun/--turn servers to everyone who joins.
            var config = RendezvousConfig()
            config.iceServers = IceServerAddress.iceServers(settings.call.iceServers)
            // A secret for this run only: seats survive a participant's network blip, not the host's end.
            var random = KernelRandom()
            // Its one room is the host's: a key drawn for this run, which only the host holds.
            let key = RoomKey.random(using: &random)
            roomKey = key
            config.roomCreation = RoomCreationPolicy(key: key, holder: .host)
            let secret = (0..<4).flatMap { _ in withUnsafeBytes(of: random.next()) { Array($0) } }
            let server: RendezvousServer, port: UInt16
            do throws(GLibError) {
                let participants = STUNParticipants()
                ((server, port), stun) = try RendezvousPorts.bind(loop: loop, endpoint: listen, shared: false, quiet: false,
                                                                  participants: participants) { endpoint, answersSTUN throws(GLibError) in
                    config.answersSTUN = answersSTUN
                    let server = RendezvousServer(loop: loop, core: RendezvousCommand.core(config, secret: secret)) { _ in }
                    server.stunParticipants = participants
                    return (server, try server.listen(on: endpoint, tls: identity.map { ($0.file, $0.file) }))
                }
            } catch {
                reporter.failure(CommandFailure(.failure, code: "listen", ListenFailure.words(error, endpoint: listen)))
                return ExitCode.failure.rawValue
            }
            embedded = server
            embeddedPort = port
            let wildcard = listen.host == "0.0.0.0" || listen.host == "::"
            // A "::" socket takes IPv4 too (or fell back to IPv4 where IPv6 is off).
            let local = wildcard ? "127.0.0.1" : listen.host
            address = RendezvousAddress(endpoint: HostPort(host: local, port: port), secure: identity != nil)
        }
        let reachability = HostReachability(loop: loop)
        let lowPorts = (https: LowPortMapping(loop: loop, port: LowPortMapping.https), http: LowPortMapping(loop: loop, port: LowPortMapping.http))
        var certificates: ACMECertificates?

        var session: ParticipantSession?
        var call: CallDriver?
        // Once leaving, nothing starts: a certificate that comes late makes no room.
        var leaving = false
        let finish = { (result: Result<CallEvent.LeaveReason, CommandFailure>) in
            guard !leaving else { return }
            leaving = true
            certificates?.cancel()
            call?.stopViews()  // the last lines belong on the normal screen
            exitCode = ParticipantRun.finish(result, reporter: reporter)
            // The router's mappings go last, once everyone has been told: quitting waits for the router's answer.
            let release = { lowPorts.https.release { lowPorts.http.release { reachability.release { loop.quit() } } } }
            let stopServer = { if let embedded { embedded.shutdown(reason: "host-left", done: release) } else { release() } }
            if let call { call.close(then: stopServer) } else { stopServer() }
        }
        ParticipantRun.leaveOnSignals(loop) {
            if let session { session.leave(reason: .signal) } else { finish(.success(.signal)) }
        }
        // The host's own connection trusts what its rendezvous serves: the certificate ACME gave,
        // or its own.
        let createRoom = { (advertised: [String], verdict: Reachability?, certificate: ServedCertificate?) in
            guard !leaving else { return }
            let trusted = certificate?.kind == .acme ? certificates.flatMap { try? RendezvousIdentity.fingerprint(ofPEMFile: $0.certificatePath) } : identity?.fingerprint
            let client: RendezvousClient
            do throws(CommandFailure) {
                client = try context.rendezvousClient(address, pinned: trusted)
            } catch {
                return finish(.failure(error))
            }
            client.createRoom(request, key: roomKey) { result in
            switch result {
            case .failure(let failure):
                finish(.failure(CommandFailure(connecting: failure, to: address, namedBy: standing == nil ? nil : context.origin("server"))))
            case .success(let room):
                // Others need the same --ca to trust a wss:// rendezvous.
                // A certificate from a CA needs no fingerprint: conf join and browsers check its chain and address.
                Self.report(room, advertised: advertised, ca: address.secure && identity == nil ? ca : nil,
                            fingerprint: certificate?.kind == .acme ? nil : identity?.fingerprint ?? standingFingerprint, secure: address.secure,
                            certificate: certificate, reporter: reporter)
                if let verdict { reporter.emit(.reachability(verdict)) }
                let s = ParticipantSession(loop: loop, client: client, reporter: reporter, clock: SystemClock(), random: KernelRandom(),
                                           room: room.room, pin: room.pin, name: settings.name, duration: settings.duration,
                                           serverNamedBy: standing == nil ? nil : context.origin("server"), onEnd: finish)
                session = s
                do throws(CommandFailure) {
                    call = try CallSetup.attach(to: s, loop: loop, reporter: reporter, options: settings.call)
                } catch {
                    return finish(.failure(error))
                }
                s.start()
            }
        } }
        if let embeddedPort, let embedded {
            reachability.start(listen: listen, port: embeddedPort, portMapping: settings.call.portMapping) { verdict, advertised in
                guard let acmeOptions else {
                    return createRoom(advertised, verdict, RendezvousCommand.served(tls: identity.map { ($0.file, $0.file) }, own: identity != nil && !ownFile))
                }
                Self.acmeCertificate(acmeOptions, stateDirectory: RendezvousSecretFile.defaultDirectory(context.environment), fallbackFile: identity!.file,
                                     verdict: verdict, port: embeddedPort, server: embedded, lowPorts: lowPorts, loop: loop, reporter: reporter) {
                    made, certificate, linkAddress in
                    certificates = made
                    // With the certificate by tls-alpn-01, the link names port 443, which the router forwards here.
                    let first = linkAddress.map { [$0] } ?? []
                    createRoom(first + advertised.filter { !first.contains($0) }, verdict, certificate)
                }
            }
        } else {
            createRoom([address.description], Reachability?.none, ServedCertificate?.none)
        }
        loop.run()
        withExtendedLifetime((call, stun, certificates)) {}
        return exitCode.rawValue
    }

    /// `--certificate acme` for the built-in rendezvous: the address others reach (a public one,
    /// or the router's) proven to the CA, by tls-alpn-01 on port 443 (forwarded here by the
    /// router, and kept for the call: the link then names 443) or else http-01 on port 80 (to a
    /// responder of its own); then `ready` with what is served and, for 443, the address the link
    /// names. Whatever stands in the way (no public address, a router that forwards neither port,
    /// the CA) leaves the self-signed certificate, and the reason goes with it.
    static func acmeCertificate(_ options: (directory: String, caFile: String?, domain: String?), stateDirectory: String?, fallbackFile: String,
                                verdict: Reachability,
                                port: UInt16, server: RendezvousServer, lowPorts: (https: LowPortMapping, http: LowPortMapping), loop: EventLoop,
                                reporter: EventReporter, ready: @escaping (ACMECertificates?, ServedCertificate, String?) -> Void) {
        let ownCertificate = { (reason: String) in ready(nil, ServedCertificate(kind: .selfSigned, reason: reason), nil) }
        guard let directory = stateDirectory else { return ownCertificate("no $XDG_STATE_HOME or $HOME to keep the certificate in") }
        let obtain = { (address: String, challenge: ACMEChallenge.Kind, responder: HTTP01Responder?) in
            let settings = ACMECertificates.Settings(directory: options.directory, caFile: options.caFile,
                                                     identifier: options.domain.map { .dns($0) } ?? .ip(address), stateDirectory: directory,
                                                     challenges: [challenge], http01: responder, fallbackFile: fallbackFile, renews: false)
            let certificates: ACMECertificates
            do throws(CommandFailure) {
                certificates = try ACMECertificates(loop: loop, server: server, settings: settings) { line in reporter.note("\(line)") }
            } catch {
                return ownCertificate(error.message)
            }
            certificates.start { served in
                // The link names what the certificate names: the domain if one was given, at 443
                // when that is the port forwarded here, else at the call's own port.
                let linkAddress = served.kind != .acme ? nil
                    : challenge == .tlsALPN01 ? HostPort(host: options.domain ?? address, port: LowPortMapping.https).description
                    : options.domain.map { HostPort(host: $0, port: port).description }
                if linkAddress == nil { lowPorts.https.release {} }
                ready(certificates, served, linkAddress)
            }
        }
        let responder = { (host: String, port: UInt16) in try? HTTP01Responder(loop: loop, endpoint: HostPort(host: host, port: port)) }
        let address = (try? HostPort.parse(verdict.address).get())?.host ?? verdict.address
        switch (verdict.verdict, verdict.via) {
        case (.reachable, .public):
            if port == LowPortMapping.https { return obtain(address, .tlsALPN01, nil) }
            guard let http = responder("0.0.0.0", LowPortMapping.http) else {
                return ownCertificate("the certificate authority checks port 443 or 80: give --listen :443, or let conf bind port 80")
            }
            obtain(address, .http01, http)
        case (.reachable, _):
            guard let route = DefaultRoute.current() else { return ownCertificate("no route to the internet") }
            lowPorts.https.start(route: route, port: port) { result in
                switch result {
                case .success(let external): obtain(external, .tlsALPN01, nil)
                case .failure(let refusedHTTPS):
                    lowPorts.https.release {}
                    guard let http = responder(route.localAddress, 0) else { return ownCertificate(refusedHTTPS.reason) }
                    lowPorts.http.start(route: route, port: http.port) { result in
                        switch result {
                        case .success(let external): obtain(external, .http01, http)
                        case .failure(let refusedHTTP):
                            lowPorts.http.release {}
                            ownCertificate("\(refusedHTTPS.reason); \(refusedHTTP.reason)")
                        }
                    }
                }
            }
        default:
            ownCertificate("this machine is not reachable from the internet, where the certificate authority checks it")
        }
    }

    /// The `room` event. With `fingerprint`, the join lines name the server by it (and TLS): a
    /// joiner then trusts that certificate and no other.
    static func report(_ room: RoomCreated, advertised: [String], ca: String?, fingerprint: ServerFingerprint?, secure: Bool,
                       certificate: ServedCertificate? = nil, reporter: EventReporter) {
        let trust = (ca.map { " --ca " + shellQuoted($0) } ?? "") + (fingerprint.map { " --fingerprint \($0)" } ?? "")
        // The scheme always written: without one, conf join reads wss://.
        let hasScheme = advertised[0].hasPrefix("wss://") || advertised[0].hasPrefix("ws://")
        let server = (hasScheme ? "" : secure || fingerprint != nil ? "wss://" : "ws://") + advertised[0]
        let join = "conf join \(room.room) \(room.pin.digits) --server \(server)" + trust
        let listenJoin = "conf join \(room.room) \(room.listenPin.digits) --server \(server)" + trust
        let address = try? RendezvousAddress.parse(server).get()
        let links = address.map { address in
            [room.pin, room.listenPin].map { InvitationLink(server: address, room: room.room, pin: $0, fingerprint: fingerprint).text }
        } ?? ["", ""]
        // A page on plain http:// has a secure context only from this machine itself.
        let forBrowsers = address.map { $0.secure || $0.isLoopback } ?? false
        reporter.emit(.room(.init(room: room, joinCommand: join, listenJoinCommand: listenJoin, otherAddresses: Array(advertised.dropFirst()),
                                  link: links[0], listenLink: links[1], forBrowsers: forBrowsers,
                                  certificate: certificate ?? (fingerprint != nil ? ServedCertificate(kind: .selfSigned) : nil))))
    }

    /// The built-in rendezvous's TLS key and certificate (made on first use, kept in the state
    /// directory beside the rendezvous secret) and its fingerprint.
    static func identity(_ context: CommandContext) throws(CommandFailure) -> (file: String, fingerprint: ServerFingerprint) {
        guard let directory = RendezvousSecretFile.defaultDirectory(context.environment) else {
            throw context.usage("no $XDG_STATE_HOME or $HOME to keep the rendezvous's TLS key in: set one, or serve plain ws:// with --no-tls")
        }
        return try identity(in: directory)
    }

    /// The TLS identity kept in `directory` (`rendezvous-tls.pem`), made there if there is none.
    static func identity(in directory: String) throws(CommandFailure) -> (file: String, fingerprint: ServerFingerprint) {
        do {
            let file = try RendezvousCertificateFile.load(directory: directory) { try RendezvousIdentity.make() }
            try PEMKeyPair.check(certificateFile: file, keyFile: file)
            return (file, try RendezvousIdentity.fingerprint(ofPEMFile: file))
        } catch let problem as RendezvousSecretFile.Problem {
            throw CommandFailure(.failure, code: "state-dir", problem.description)
        } catch {
            throw CommandFailure(.failure, code: "state-dir",
                                 "\(directory)/rendezvous-tls.pem: \(error) — remove it to make a new key (the fingerprint in join lines then changes)")
        }
    }

    /// `text` as one word for a POSIX shell.
    static func shellQuoted(_ text: String) -> String {
        let plain = !text.isEmpty && text.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "/._-+:@%,=".unicodeScalars.contains($0)
        }
        return plain ? text : "'" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: #"'\''"#) + "'"
    }
}
