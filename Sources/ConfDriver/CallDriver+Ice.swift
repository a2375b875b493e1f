import ConfCall
import ConfCore
import ConfIO
import ConfWire

/// The driver's ICE side: one libnice agent per link as the engine asks (its callbacks fed back
/// as inputs, and only while that agent is the link's current one), TURN over TLS through a local
/// tunnel, and the machine's addresses, watched for changes. Event-loop thread only, as the driver.
extension CallDriver {
    /// Host candidates on every IPv4 and IPv6 address; loopback too, for calls on one machine.
    static func localAddresses() -> [String] {
        NetworkInterfaces.reachableAddresses() + ["127.0.0.1"]
    }

    /// Once a second: when an address came or went, every link is set up again on the new set
    /// (getifaddrs is one netlink dump; GLib's network monitor reports routes, not addresses).
    func watchNetwork() {
        networkWatch = loop.schedule(every: .seconds(1)) { [weak self] in
            guard let self else { return false }
            let now = Self.localAddresses()
            guard Set(now) != Set(self.addresses) else { return true }
            self.reporter.note("conf: this machine's addresses changed (\(now.filter { $0 != "127.0.0.1" }.joined(separator: ", "))): connecting again")
            self.addresses = now
            self.onNetworkChanged()
            return true
        }
    }

    /// `relayOnly`: the engine asks for relay candidates alone (a set-up tried twice without a
    /// path); honoured when there is a TURN server, else the agent gathers as always.
    func startIce(_ id: ParticipantID, credentials: IceCredentials, controlling: Bool, relayOnly: Bool = false) {
        let transport: IceTransport
        let hasRelay = settings.iceServers.contains { $0.credentials != nil }
        do {
            transport = try IceTransport(loop: loop, controlling: controlling, addresses: addresses, servers: settings.iceServers.map(reachable),
                                         relayOnly: settings.relayOnly || (relayOnly && hasRelay), portMapping: settings.portMapping,
                                         credentials: (credentials.ufrag, credentials.pwd))
        } catch {
            return feed(.iceUnavailable(id, reason: "\(error)"))
        }
        transports[id] = transport
        feed(.iceStarted(id))
        // Callbacks of an agent that was replaced (a restart) or closed are not for the engine.
        transport.onCandidate = { [weak self, unowned transport] candidate in
            guard let self, self.transports[id] === transport else { return }
            self.feed(.localCandidate(id, candidate))
        }
        transport.onGatheringDone = { [weak self, unowned transport] in
            guard let self, self.transports[id] === transport else { return }
            self.feed(.localGatheringDone(id))
        }
        transport.onState = { [weak self, unowned transport] state in
            guard let self, self.transports[id] === transport else { return }
            self.feed(.iceState(id, state.engineState))
        }
        transport.onSelectedPair = { [weak self, unowned transport] pair in
            guard let self, self.transports[id] === transport else { return }
            self.feed(.selectedPair(id, CandidatePair(local: pair.local, remote: pair.remote)))
        }
        transport.onDatagram = { [weak self, unowned transport] datagram in
            guard let self, self.transports[id] === transport else { return }
            self.feed(.datagram(from: id, datagram))
        }
    }

    /// A TURN-over-TLS server as libnice can reach it: its tunnel's loopback port, over TCP.
    private func reachable(_ server: IceServerAddress) -> IceServerAddress {
        guard let name = server.tlsServerName else { return server }
        let key = "\(HostPort(host: name, port: server.port))"
        if tunnels[key] == nil {
            do {
                let tunnel = try TURNOverTLSTunnel(serverName: name, address: server.host, port: server.port, trusting: settings.trust)
                tunnel.onFailure = { [weak self] why in self?.reporter.note("\(why)") }
                tunnels[key] = tunnel
            } catch {
                reporter.note("TURN over TLS to \(key) is not available: \(error.message)")
                return server
            }
        }
        return IceServerAddress(host: "127.0.0.1", port: tunnels[key]!.localPort, credentials: server.credentials, overTCP: true)
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
