import ConfCore
import ConfWire
#if canImport(Glibc)
import Glibc
#endif

/// Asks the home router to forward a port (TCP and UDP, or only some of them) to this machine,
/// every way a router may understand, and reports what it says as `ReachabilityJudge` facts:
///
/// - PCP, falling back to NAT-PMP, to the default gateway (`PortMappingSession`, driven here with
///   a UDP socket and the loop's timers); the session renews the lease at half its life.
/// - UPnP-IGD (`UPnPPortMapper`), whose discovery starts at once; it is asked to map only when PCP
///   and NAT-PMP have not mapped within `upnpDelay`, so that a router speaking both gets one
///   mapping, and it is given `upnpPatience` to answer. It always names the external port it
///   wants: GUPnP-IGD answers a refusal of "any port" (718, ConflictInMappingEntry, which
///   miniupnpd also gives for an address that is not the asker's) by asking again with another
///   random port, without end.
///
/// `release` deletes whatever was made, both ways, and calls back once the router answered or the
/// time for it ran out: the host waits for it before it exits.
///
/// Threading: made and used on the loop's thread.
public final class RouterPortMapping {
    public static let upnpDelay: Duration = .seconds(1)
    public static let upnpPatience: Duration = .seconds(4)

    private let loop: EventLoop
    private let route: DefaultRoute
    private let port: UInt16
    /// The port asked for outside; `port` unless another was wanted (443 for ACME's validation).
    private let externalPort: UInt16
    private let transports: [MappingTransport]
    private let upnpDelay: Duration
    private let onFact: (ReachabilityJudge.Fact) -> Void
    private let session: PortMappingSession?
    private let socket: UDPSocket?
    /// The gateway's PCP/NAT-PMP port, where every request goes.
    private let gateway: SocketAddress?
    private var deadline: Timer?
    private var upnp: UPnPPortMapper?
    private var upnpAsked = false
    private var gatewayMapped = false
    private var upnpTimers: [Timer] = []
    private var onReleased: (() -> Void)?
    /// Where what deletes this owner's mappings is kept while they stand.
    private let leftovers = PortMappingLeftovers.newName()
    private var upnpHeld: [PortMappingLeftovers.UPnPMapping] = []

    public init(loop: EventLoop, route: DefaultRoute, port: UInt16, externalPort: UInt16? = nil, transports: [MappingTransport] = [.tcp, .udp],
                upnpDelay: Duration = RouterPortMapping.upnpDelay, onFact: @escaping (ReachabilityJudge.Fact) -> Void) {
        self.loop = loop
        self.route = route
        self.port = port
        self.externalPort = externalPort ?? port
        self.transports = transports
        self.upnpDelay = upnpDelay
        self.onFact = onFact
        let client = IPv4Address(route.localAddress), gateway = IPv4Address(route.gateway)
        self.gateway = SocketAddress(route.gateway, port: PortMappingSession.gatewayPort)
        if let client, let gateway, let socket = try? UDPSocket(host: route.localAddress, port: 0) {
            var random = KernelRandom()
            session = PortMappingSession(configuration: .init(clientAddress: client, gateway: gateway,
                                                              mappings: transports.map { WantedMapping($0, internalPort: port, externalPort: externalPort) }),
                                         random: &random)
            self.socket = socket
        } else {
            session = nil
            socket = nil
        }
        upnp = UPnPPortMapper(loop: loop) { [weak self] event in self?.upnpEvent(event) }
    }

    deinit {
        deadline?.cancel()
        for timer in upnpTimers { timer.cancel() }
    }

    /// Starts asking; facts arrive through `onFact` from now on.
    public func start() {
        if let session, let socket {
            socket.receive(on: loop) { [weak self] bytes, sender in
                guard let self, sender.isIPv4 else { return }
                let from = IPv4Address(sender.address[0], sender.address[1], sender.address[2], sender.address[3])
                self.handle(.received(Array(bytes), from: from, port: sender.port))
            }
            handle(.start)
        } else {
            onFact(.gateway(.noGatewayAnswered))
        }
        upnpTimers.append(loop.schedule(after: upnpDelay) { [weak self] in self?.askUPnP() })
    }

    /// Deletes every mapping made and calls `done` when the router has answered (at most a few
    /// seconds). Nothing is reported after.
    public func release(done: @escaping () -> Void) {
        for timer in upnpTimers { timer.cancel() }
        upnpTimers = []
        var waiting = 2
        let leftovers = leftovers
        let finish = OnceCallback { PortMappingLeftovers.forget(leftovers); done() }
        let one = { waiting -= 1; if waiting == 0 { finish.call() } }
        if let upnp {
            self.upnp = nil
            upnp.release(done: one)
        } else {
            one()
        }
        if session != nil {
            onReleased = one
            handle(.release)
        } else {
            one()
        }
    }

    private func askUPnP() {
        guard !gatewayMapped, !upnpAsked, upnp != nil else { return }
        upnpAsked = true
        // After what a dead conf left is deleted: that may be this very port.
        PortMappingLeftovers.whenSwept { [weak self] in
            guard let self, let upnp = self.upnp, !self.gatewayMapped else { return }
            for transport in self.transports {
                upnp.add(transport == .tcp ? .tcp : .udp, localAddress: self.route.localAddress, localPort: self.port,
                         externalPort: self.externalPort, description: "conf \(getpid())")
            }
            self.upnpTimers.append(self.loop.schedule(after: Self.upnpPatience) { [weak self] in self?.onFact(.upnpSilent) })
        }
    }

    private func upnpEvent(_ event: UPnPPortMapper.Event) {
        switch event {
        case .mapped(let proto, let localPort, let address, let external):
            let held = PortMappingLeftovers.UPnPMapping(proto: proto, externalPort: external, localAddress: route.localAddress, localPort: localPort)
            if onReleased == nil, !upnpHeld.contains(held) {
                upnpHeld.append(held)
                recordLeftovers()
            }
            onFact(.upnpMapped(tcp: proto == .tcp, externalAddress: address, externalPort: external))
        case .failed(let proto, _, let reason):
            onFact(.upnpRefused(tcp: proto == .tcp, reason: reason))
        case .noExternalAddress:
            onFact(.upnpNoExternalAddress)
        }
    }

    private func recordLeftovers() {
        PortMappingLeftovers.record(leftovers, gateway: route.gateway, deletions: session?.deletions ?? [], upnp: upnpHeld)
    }

    private func handle(_ input: PortMappingSession.Input) {
        guard let session else { return }
        session.handle(input, now: loop.clock.now())
        while let output = session.pollOutput() {
            switch output {
            case .send(let bytes):
                if let gateway { socket?.send(bytes, to: gateway) }
            case .event(.released):
                let done = onReleased
                onReleased = nil
                done?()
            case .event(let event):
                if case .mapped = event {
                    gatewayMapped = true
                    recordLeftovers()
                }
                if onReleased == nil { onFact(.gateway(event)) }
            }
        }
        deadline?.cancel()
        deadline = nil
        if let next = session.nextDeadline() {
            let now = loop.clock.now()
            deadline = loop.schedule(after: next > now ? next.since(now) : .zero) { [weak self] in self?.handle(.timeout) }
        }
    }
}
