import ConfIO
import ConfWire

/// `conf host` with its built-in rendezvous: finds out whether others on the internet can reach
/// it, opening the router's door where one can be opened (`RouterPortMapping`), and what the join
/// line should name. The mappings live as long as this object's owner keeps it and are removed by
/// `release`.
///
/// Threading: the loop's thread.
final class HostReachability {
    private let loop: EventLoop
    private var mapping: RouterPortMapping?
    private var judge: ReachabilityJudge?
    /// Until the judge decides: what to do with its verdict.
    private var onVerdict: ((Reachability) -> Void)?
    private var lanAddresses: [String] = []

    init(loop: EventLoop) { self.loop = loop }

    /// Calls `onVerdict` once with the verdict and the addresses to advertise ("host:port"), best
    /// first (what the verdict names, then this machine's own): at once
    /// when nothing needs asking, else when the router has answered (a few seconds at most).
    func start(listen: HostPort, port: UInt16, portMapping: Bool, onVerdict: @escaping (Reachability, [String]) -> Void) {
        let wildcard = listen.host == "0.0.0.0" || listen.host == "::"
        let local = wildcard ? NetworkInterfaces.reachableIPv4Addresses() + (listen.host == "::" ? NetworkInterfaces.reachableIPv6Addresses() : [])
                             : [listen.host]
        lanAddresses = local.isEmpty ? ["127.0.0.1"] : local
        let advertise = { (first: String?) in
            ([first].compactMap { $0 } + self.lanAddresses.map { HostPort(host: $0, port: port).description })
                .reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        }
        if !wildcard, Self.isLoopback(listen.host) {
            return onVerdict(.loopback(listen.host, port: port), advertise(nil))
        }
        if let open = local.first(where: { IPv4Address($0)?.scope == .public }) {
            let verdict = Reachability.publicAddress(open, port: port)
            return onVerdict(verdict, advertise(verdict.address))
        }
        guard let route = DefaultRoute.current(), wildcard || listen.host == route.localAddress else {
            return onVerdict(.notOpened(lanAddresses[0], port: port, why: "no route to the internet from \(lanAddresses[0])"), advertise(nil))
        }
        guard portMapping else {
            let verdict = Reachability.notOpened(route.localAddress, port: port, why: "port mapping is off (--port-mapping off)")
            return onVerdict(verdict, advertise(verdict.address))
        }
        judge = ReachabilityJudge(port: port, lanAddress: route.localAddress)
        self.onVerdict = { verdict in onVerdict(verdict, advertise(verdict.address)) }
        let mapping = RouterPortMapping(loop: loop, route: route, port: port) { [weak self] fact in self?.add(fact) }
        self.mapping = mapping
        mapping.start()
    }

    /// Removes the router's mappings; `done` once the router has answered (a few seconds at most).
    func release(done: @escaping () -> Void) {
        onVerdict = nil
        guard let mapping else { return done() }
        self.mapping = nil
        mapping.release { withExtendedLifetime(mapping) {}; done() }
    }

    private func add(_ fact: ReachabilityJudge.Fact) {
        guard var judge else { return }
        judge.add(fact)
        self.judge = judge
        guard let verdict = judge.verdict, let onVerdict else { return }
        self.onVerdict = nil
        onVerdict(verdict)
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}
