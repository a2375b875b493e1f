import ConfCall
import ConfCore
import ConfDriver
import ConfIO
import ConfWire

/// `conf check`: what a host and a joiner on this network would meet, without making a room:
/// the router's port mapping (`HostReachability`, released again), the STUN servers' view of
/// this machine (`ConnectivityProbe` from one UDP socket), IPv6, TURN. One `check` event.
struct CheckCommand {
    let context: CommandContext

    init(_ context: CommandContext) { self.context = context }

    func run() -> Int32 {
        let reporter = context.reporter()
        let stun: [IceServerAddress], turn: [IceServerAddress], listen: HostPort, portMapping: Bool
        do throws(CommandFailure) {
            let given = try CallOptions.iceServers(context)
            var asked: [IceServerAddress] = []
            for server in given where server.credentials == nil && !asked.contains(where: { $0.endpoint == server.endpoint }) {
                asked.append(server)
            }
            if let rendezvous = try context.rendezvousAddress() {
                // Every conf rendezvous answers STUN on UDP at its own port.
                guard let ip = HostResolver.address(rendezvous.endpoint.host) else {
                    throw context.usage("\(context.origin("server")) \(rendezvous.endpoint): cannot resolve '\(rendezvous.endpoint.host)' to an IP address")
                }
                let own = IceServerAddress(host: ip, port: rendezvous.endpoint.port)
                asked.removeAll { $0.endpoint == own.endpoint }
                asked.insert(own, at: 0)
            }
            stun = asked
            turn = given.filter { $0.credentials != nil && !$0.overTCP }
            listen = try context.listenEndpoint()
            portMapping = try context.portMapping()
        } catch {
            reporter.failure(error)
            return error.exitCode.rawValue
        }

        let loop = EventLoop()
        ParticipantRun.clearLeftoverMappings(context, portMapping: portMapping, loop: loop)
        var random = KernelRandom()
        let probe = ConnectivityProbe(stunServers: stun.count, turnServers: turn.count, random: &random)
        let servers = (stun + turn).map { SocketAddress($0.host, port: $0.port) }
        let socket = try? UDPSocket(host: "0.0.0.0", port: 0)
        var reachability: Reachability?
        var timer: Timer?
        let router = HostReachability(loop: loop)
        var exitCode = ExitCode.ok
        var finished = false

        func finishWhenDone() {
            guard probe.isDone, let reachability, !finished else { return }
            finished = true
            timer?.cancel()
            let verdict = ConnectivityVerdict(mapped: probe.mappedAddresses, local: NetworkInterfaces.reachableIPv4Addresses(),
                                              forwarded: reachability.verdict == .reachable)
            let answers = zip(turn, probe.turnAnswered).map { CallEvent.ConnectivityReport.TURNAnswer(server: $0.endpoint.description, answered: $1) }
            let global = NetworkInterfaces.reachableIPv6Addresses().filter { !$0.lowercased().hasPrefix("fd") && !$0.lowercased().hasPrefix("fc") }
            reporter.emit(.check(.init(verdict: verdict, portMapping: reachability, stunServers: stun.map(\.endpoint.description),
                                       ipv6: global, turn: answers)))
            exitCode = verdict.verdict == .direct ? .ok : .directCallUnlikely
            router.release { loop.quit() }
        }
        func service() {
            while case .send(let bytes, let to)? = probe.pollOutput() {
                if let destination = servers[to] { _ = socket?.send(bytes, to: destination) }
            }
            timer?.cancel()
            if let next = probe.nextDeadline() {
                let now = loop.clock.now()
                timer = loop.schedule(after: next > now ? next.since(now) : .zero) {
                    probe.timeout(now: loop.clock.now())
                    service()
                }
            }
            finishWhenDone()
        }
        socket?.receive(on: loop) { bytes, sender in
            guard let index = servers.firstIndex(of: sender) else { return }
            probe.received(Array(bytes), from: index)
            service()
        }
        router.start(listen: listen, port: listen.port == 0 ? HostPort.defaultPort : listen.port, portMapping: portMapping) { verdict, _ in
            reachability = verdict
            finishWhenDone()
        }
        probe.start(now: loop.clock.now())
        service()
        ParticipantRun.leaveOnSignals(loop) { router.release { loop.quit() } }
        loop.run()
        withExtendedLifetime(socket) {}
        return exitCode.rawValue
    }
}
