import ConfCall
import ConfCore
import ConfIO
import ConfWire

/// The call's ICE side: one libnice agent per link as the engine asks, TURN over TLS through a
/// local tunnel per server, and the machine's addresses, watched for changes. What an agent
/// reports goes to `onInput` as the engine's input, and only while that agent is its link's
/// current one: the callbacks of an agent that a restart replaced, or that was closed, are not
/// for the engine.
///
/// Threading: the event loop thread only.
final class IceAgents {
    let loop: EventLoop
    var settings: CallDriver.Settings
    /// Where agents gather host candidates; looked at again each second (`watchAddresses`).
    private(set) var addresses = IceAgents.localAddresses()
    private var agents: [ParticipantID: IceTransport] = [:]
    /// One per TURN-over-TLS server, shared by every link's agent.
    private var tunnels: [String: TURNOverTLSTunnel] = [:]
    private var addressWatch: Timer?
    /// Agents being closed (TURN allocations released), and what to do once none is.
    private var closing = 0
    private var onAllClosed: (() -> Void)?
    private let onInput: (CallEngine.Input) -> Void
    private let note: (String) -> Void
    /// Browsers' `.local` candidates, looked up by mDNS (made at the first one).
    private var mdns: MDNSResolver?
    /// Per link: `.local` lookups under way, and whether the peer's end of candidates waits for them.
    private var lookups: [ParticipantID: (pending: Int, endWaits: Bool)] = [:]
    /// At most this many lookups per link at once: a page may name as many as it likes.
    static let lookupsPerLink = 8

    init(loop: EventLoop, settings: CallDriver.Settings, onInput: @escaping (CallEngine.Input) -> Void, note: @escaping (String) -> Void) {
        self.loop = loop
        self.settings = settings
        self.onInput = onInput
        self.note = note
    }

    /// Host candidates on every IPv4 and IPv6 address; loopback too, for calls on one machine.
    static func localAddresses() -> [String] {
        NetworkInterfaces.reachableAddresses() + ["127.0.0.1"]
    }

    /// Once a second: when an address came or went, `changed` with the new set (getifaddrs is one
    /// netlink dump; GLib's network monitor reports routes, not addresses).
    func watchAddresses(changed: @escaping ([String]) -> Void) {
        addressWatch = loop.schedule(every: .seconds(1)) { [weak self] in
            guard let self else { return false }
            let now = Self.localAddresses()
            guard Set(now) != Set(self.addresses) else { return true }
            self.addresses = now
            changed(now)
            return true
        }
    }

    /// Carries out one of the engine's ICE outputs (the driver hands it no other).
    func perform(_ output: CallEngine.Output) {
        switch output {
        case .startIce(let id, let credentials, let controlling, let relayOnly):
            start(id, credentials: credentials, controlling: controlling, relayOnly: relayOnly)
        case .gather(let id):
            agents[id]?.gather()
        case .setRemoteCredentials(let id, let ufrag, let pwd):
            agents[id]?.setRemoteCredentials(ufrag: ufrag, pwd: pwd)
        case .addRemoteCandidate(let id, let candidate):
            if MDNSMessage.isLocalName(candidate.address) { return lookUp(candidate, for: id) }
            agents[id]?.addRemote(candidate)
        case .remoteCandidatesDone(let id):
            // libnice ends checks on candidates it has when told there are no more: a `.local`
            // one still being looked up would come too late.
            if let lookup = lookups[id], lookup.pending > 0 { lookups[id]?.endWaits = true } else { agents[id]?.remoteGatheringDone() }
        case .closeIce(let id):
            lookups[id] = nil
            guard let agent = agents.removeValue(forKey: id) else { return }
            closing += 1
            agent.close { [weak self] in self?.closed() }
        case .transmit(let id, let datagram):
            agents[id]?.send(datagram)
        default:
            break
        }
    }

    /// A browser's host candidate behind an mDNS name (browsers hide their local addresses so):
    /// given to the agent with the address the name resolves to on this link, if it does.
    private func lookUp(_ candidate: IceCandidate, for id: ParticipantID) {
        guard let agent = agents[id], (lookups[id]?.pending ?? 0) < Self.lookupsPerLink else { return }
        lookups[id, default: (0, false)].pending += 1
        let resolver = mdns ?? MDNSResolver(loop: loop)
        mdns = resolver
        resolver.resolve(candidate.address) { [weak self, weak agent] address in
            guard let self, let agent, self.agents[id] === agent else { return }
            if let address {
                var resolved = candidate
                resolved.address = address
                agent.addRemote(resolved)
            }
            self.lookups[id]?.pending -= 1
            if let lookup = self.lookups[id], lookup.pending == 0, lookup.endWaits {
                self.lookups[id] = nil
                agent.remoteGatheringDone()
            }
        }
    }

    /// `relayOnly`: the engine asks for relay candidates alone (a set-up tried twice without a
    /// path); honoured when there is a TURN server, else the agent gathers as always.
    private func start(_ id: ParticipantID, credentials: IceCredentials, controlling: Bool, relayOnly: Bool) {
        let agent: IceTransport
        let hasRelay = settings.iceServers.contains { $0.credentials != nil }
        do {
            agent = try IceTransport(loop: loop, controlling: controlling, addresses: addresses, servers: settings.iceServers.map(reachable),
                                     relayOnly: settings.relayOnly || (relayOnly && hasRelay), portMapping: settings.portMapping,
                                     credentials: (credentials.ufrag, credentials.pwd))
        } catch {
            return onInput(.iceUnavailable(id, reason: "\(error)"))
        }
        agents[id] = agent
        onInput(.iceStarted(id))
        let fromCurrent = { [weak self, unowned agent] (input: CallEngine.Input) in
            guard let self, self.agents[id] === agent else { return }
            self.onInput(input)
        }
        agent.onCandidate = { fromCurrent(.localCandidate(id, $0)) }
        agent.onGatheringDone = { fromCurrent(.localGatheringDone(id)) }
        agent.onState = { fromCurrent(.iceState(id, $0.engineState)) }
        agent.onSelectedPair = { fromCurrent(.selectedPair(id, CandidatePair(local: $0.local, remote: $0.remote))) }
        agent.onDatagram = { fromCurrent(.datagram(from: id, $0)) }
    }

    /// A TURN-over-TLS server as libnice can reach it: its tunnel's loopback port, over TCP.
    private func reachable(_ server: IceServerAddress) -> IceServerAddress {
        guard let name = server.tlsServerName else { return server }
        let key = "\(HostPort(host: name, port: server.port))"
        if tunnels[key] == nil {
            do {
                let tunnel = try TURNOverTLSTunnel(serverName: name, address: server.host, port: server.port, trusting: settings.trust)
                tunnel.onFailure = { [weak self] why in self?.note("\(why)") }
                tunnels[key] = tunnel
            } catch {
                note("TURN over TLS to \(key) is not available: \(error.message)")
                return server
            }
        }
        return IceServerAddress(host: "127.0.0.1", port: tunnels[key]!.localPort, credentials: server.credentials, overTCP: true)
    }

    /// We are leaving: no more address changes; `done` once every agent closed (TURN allocations
    /// released), or after `patience` at most.
    func whenClosed(within patience: Duration, _ done: @escaping () -> Void) {
        addressWatch?.cancel()
        var finished = false
        let finish = {
            guard !finished else { return }
            finished = true
            done()
        }
        if closing == 0 { return finish() }
        onAllClosed = finish
        loop.schedule(after: patience, finish)
    }

    private func closed() {
        closing -= 1
        if closing == 0, let onAllClosed {
            self.onAllClosed = nil
            onAllClosed()
        }
    }
}

extension IceTransport.State {
    var engineState: CallEngine.IceState {
        switch self {
        case .checking: .checking
        case .connected: .connected
        case .failed: .failed
        }
    }
}
