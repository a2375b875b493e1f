import ConfCore
import ConfWire

/// Asks the home router to forward one link's UDP port (its host candidate on the address of the
/// default route) and offers what the router gives as a server-reflexive candidate, as libnice's
/// own UPnP did, but by PCP and NAT-PMP too, and for that one address only.
///
/// libnice's UPnP is not used: it asks for every host candidate (loopback, a container bridge, a
/// VPN) with "any external port", which a router in secure mode refuses with 718, which GUPnP-IGD
/// answers by asking again, without end: hundreds of requests a second for the whole call, and
/// while they ran the mapping that mattered came seconds late (Tests/FLAKES.md).
///
/// `onSettled` is called once: with the candidate when the router mapped the port, or with nil
/// when it refused, or when nothing mapped within `patience`. A mapping that comes after that is
/// still offered (`onLateCandidate`).
///
/// Threading: made and used on the loop's thread.
final class MediaPortMapping {
    static let patience: Duration = .seconds(2)
    /// PCP and NAT-PMP answer on a LAN within milliseconds; UPnP is asked when they have not.
    static let upnpDelay: Duration = .milliseconds(250)

    private let base: IceCandidate
    private var mapping: RouterPortMapping?
    private var settle: ((IceCandidate?) -> Void)?
    private var onLateCandidate: ((IceCandidate) -> Void)?
    private var offered: Set<String> = []
    private var gatewayAnswered = false
    private var upnpAnswered = false
    private var patienceTimer: Timer?

    /// Nil when `base` is not a UDP host candidate on the default route's private address (a
    /// public address needs no mapping; other addresses are not the router's to forward).
    init?(loop: EventLoop, base: IceCandidate, onSettled: @escaping (IceCandidate?) -> Void,
          onLateCandidate: @escaping (IceCandidate) -> Void) {
        guard base.kind == .host, base.transport.lowercased() == "udp", let route = DefaultRoute.current(),
              route.localAddress == base.address, let address = IPv4Address(base.address), address.scope != .public else { return nil }
        self.base = base
        settle = onSettled
        self.onLateCandidate = onLateCandidate
        mapping = RouterPortMapping(loop: loop, route: route, port: base.port, transports: [.udp], upnpDelay: Self.upnpDelay) { [weak self] fact in
            self?.fact(fact)
        }
        mapping?.start()
        patienceTimer = loop.schedule(after: Self.patience) { [weak self] in self?.settled(nil) }
    }

    deinit { patienceTimer?.cancel() }

    /// `onSettled` was called (or the mapping was released).
    var isSettled: Bool { settle == nil }

    /// Deletes the router's mapping; `done` once it answered (a few seconds at most).
    func release(done: @escaping () -> Void) {
        settle = nil
        onLateCandidate = nil
        patienceTimer?.cancel()
        guard let mapping else { return done() }
        self.mapping = nil
        mapping.release { withExtendedLifetime(mapping) {}; done() }
    }

    private func fact(_ fact: ReachabilityJudge.Fact) {
        switch fact {
        case .gateway(.mapped(let grant)):
            guard let port = grant.ports.first(where: { $0.wanted.transport == .udp })?.externalPort,
                  grant.externalAddress.scope == .public else { return gatewayDone() }
            mapped(grant.externalAddress.description, port: port)
        case .upnpMapped(tcp: false, let address, let port):
            guard let external = IPv4Address(address), external.scope == .public else { return upnpDone() }
            mapped(external.description, port: port)
        case .gateway(.released), .gateway(.unanswered), .upnpMapped(tcp: true, _, _):
            break
        case .gateway:
            gatewayDone()
        case .upnpRefused, .upnpNoExternalAddress, .upnpSilent:
            upnpDone()
        }
    }

    private func gatewayDone() {
        gatewayAnswered = true
        if upnpAnswered { settled(nil) }
    }

    private func upnpDone() {
        upnpAnswered = true
        if gatewayAnswered { settled(nil) }
    }

    private func mapped(_ address: String, port: UInt16) {
        let candidate = Self.candidate(address, port: port, base: base)
        guard offered.insert("\(address):\(port)").inserted else { return }
        if settle != nil { settled(candidate) } else { onLateCandidate?(candidate) }
    }

    private func settled(_ candidate: IceCandidate?) {
        patienceTimer?.cancel()
        guard let settle else { return }
        self.settle = nil
        settle(candidate)
    }

    /// A server-reflexive candidate (RFC 8445 section 5.1.2.1: type preference 100, the highest
    /// local preference, component 1) whose base is the host candidate the router forwards to.
    static func candidate(_ address: String, port: UInt16, base: IceCandidate) -> IceCandidate {
        IceCandidate(foundation: "portmap", component: 1, transport: "udp", priority: 100 << 24 | 65_535 << 8 | 255,
                     address: address, port: port, kind: .srflx, relatedAddress: base.address, relatedPort: base.port)
    }
}
