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
        let config: RendezvousConfig
        let endpoint: HostPort
        let perClient: Int
        let tls: (certificate: String, key: String)?
        let secret: [UInt8]
        do throws(CommandFailure) {
            config = try Self.config(context)
            endpoint = try context.listenEndpoint()
            tls = try Self.tls(context)
            guard let directory = context.invocation.value("state-dir") ?? RendezvousSecretFile.defaultDirectory(context.environment) else {
                throw context.usage("no $XDG_STATE_HOME or $HOME to keep the rendezvous secret in: give --state-dir DIR")
            }
            secret = try RendezvousSecretFile.load(directory: directory)
            perClient = try context.positiveInteger("max-connections-per-client", default: 64)
        } catch {
            Console.err("conf rendezvous: \(error.message)")
            return error.exitCode.rawValue
        }
        let quiet = context.invocation.flag("quiet")
        DescriptorLimit.raiseToHard()  // Before any socket: a soft limit of 1024 is reached under load.
        let loop = EventLoop()
        let limits = ConnectionAdmission.Limits(maxTotal: DescriptorLimit.connectionBudget, maxPerClient: perClient)
        let server = RendezvousServer(loop: loop, core: Self.core(config, secret: secret), limits: limits) { line in
            // Log lines quote what clients sent (room and participant names): escaped for the terminal.
            if !quiet { Console.err("rendezvous: " + TerminalEscape.escape(line)) }
        }
        let port: UInt16
        do throws(GLibError) {
            port = try server.listen(on: endpoint, tls: tls)
        } catch {
            Console.err("conf rendezvous: cannot listen on \(endpoint): \(error.message)"
                        + (endpoint.port != 0 ? " — is another rendezvous running? pick another port with --listen" : ""))
            return ExitCode.failure.rawValue
        }
        let bound = HostPort(host: endpoint.host, port: port)
        Console.out("conf rendezvous listening on \(tls == nil ? "" : "https://")\(bound)")
        var stopping = false
        for signal in [SIGINT, SIGTERM] {
            loop.onSignal(signal) {
                if stopping { exit(ExitCode.failure.rawValue) }
                stopping = true
                // A standing rendezvous stopping is most often a restart: rooms are not ended, so
                // participants keep their calls and take their seats back from the next process
                // (which finds the same secret in --state-dir).
                server.shutdown(reason: "server-shutdown", endRooms: false) { loop.quit() }
            }
        }
        loop.run()
        return ExitCode.ok.rawValue
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
        for stun in context.invocation.values("stun") {
            guard case .success(let endpoint) = HostPort.parse(stun, defaultHost: "") else {
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

    static func tls(_ context: CommandContext) throws(CommandFailure) -> (certificate: String, key: String)? {
        let cert = context.setting("tls-cert"), key = context.setting("tls-key")
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
