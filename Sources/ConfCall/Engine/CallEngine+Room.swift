import ConfCore
import ConfCrypto
import ConfSession
import ConfWire

/// The room's events and the mesh's negotiation.
extension CallEngine {
    func joined(you: ParticipantID, role: Role, peers: [Participant], now: Instant) {
        me = you
        self.role = role
        // The mesh asks for links from inside later inputs: they open at that input's time.
        mesh = Mesh(sessionID: random.next() >> 1) { [unowned self] id, controlling in
            self.openLink(to: id, controlling: controlling, now: self.now)
        }
        for peer in peers { roster[peer.id] = peer }
        if let interval = configuration.statsInterval { nextStatsAt = now + interval }
        mesh?.joined(peers: peers)
        drainMesh(now: now)
        if configuration.failsWhenNobodyConnects && !peers.isEmpty { connectDeadline = now + configuration.connectTimeout }
    }

    func peerJoined(_ peer: Participant, now: Instant) {
        roster[peer.id] = peer
        peerSlots[peer.id, default: PeerSlot()].joined()
        mesh?.peerJoined(peer)
        drainMesh(now: now)
    }

    func peerLeft(_ id: ParticipantID, now: Instant) {
        mesh?.peerLeft(id)
        drainMesh(now: now)
        roster[id] = nil
        peerSlots[id] = nil
    }

    func signal(from id: ParticipantID, _ payload: JSONValue, now: Instant) {
        let signal: PeerSignal
        do {
            signal = try PeerSignal(json: payload)
        } catch {
            outputs.append(.note(.ignoredSignal(from: id, reason: "\(error)")))
            return
        }
        if signal == .restart { return peerNetworkChanged(id, now: now) }
        mesh?.received(signal, from: id)
        drainMesh(now: now)
    }

    /// The set-up of a link that has never connected from which both sides ask for relay-only
    /// agents. Between two NATs that map each destination to its own port, libnice's relay pairs
    /// beside its host and server-reflexive ones went unanswered through one coturn, while
    /// relay-only agents on both sides connected in 80 ms (namespaces, issue 35). Both sides
    /// count the same set-ups (the first, then each restart the offerer's new offer starts), so
    /// both switch together; the third comes after two stalls (`setupStallLimit`), 10 s into a
    /// 15 s connect timeout, so a link that only needed another try is not sent through a relay.
    static let relayOnlyFromAttempt = 3

    /// The mesh wants a link to `id`: a fresh `Link` (a restart replaces the old one),
    /// and the driver is asked for an ICE agent with the link's credentials.
    private func openLink(to id: ParticipantID, controlling: Bool, now: Instant) -> LocalEndpoint {
        let peer = roster[id] ?? Participant(id: id, name: id.rawValue, role: .publisher)
        let old = peerSlots[id]?.link
        peerSlots[id]?.link = nil
        if let old {  // a restart: the old link goes
            if old.phase == .connected { report(disconnected: old, .restarting) }
            if old.phase != .disconnected { teardown(old) }
            old.end()
        }
        let link = Link(peer: peer, controlling: controlling, settings: linkSettings, now: now, random: &random)
        peerSlots[id, default: PeerSlot()].linkOpens(retrying: old.map { $0.dtlsConnectedAt == nil } ?? false, now: now)
        peerSlots[id, default: PeerSlot()].link = link
        let attempt = peerSlots[id]?.setupAttempt ?? 1
        let relayOnly = attempt >= Self.relayOnlyFromAttempt
        if relayOnly && attempt == Self.relayOnlyFromAttempt {
            outputs.append(.note(.tryingRelayOnly(peer)))
        }
        outputs.append(.startIce(id, link.credentials, controlling: controlling, relayOnly: relayOnly))
        return LocalEndpoint(iceUfrag: link.credentials.ufrag, icePwd: link.credentials.pwd, fingerprint: security.fingerprint,
                             role: role, audioSSRC: link.audioSSRC, videoSSRC: link.videoSSRC,
                             congestionControl: configuration.congestionControl,
                             sasCommitment: ShortAuthenticationString.commitment(to: link.sasNonce))
    }

    func drainMesh(now: Instant) {
        guard let mesh else { return }
        while let output = mesh.pollOutput() {
            switch output {
            case .open(let id, _):
                // Gathering waits until the mesh knows the peer: an agent may report host
                // candidates at once.
                if peerSlots[id]?.link != nil { emitOnceTheAgentIsUp(.gather(id), for: id) }
            case .signal(let id, let signal):
                emitOnceTheAgentIsUp(.signal(id, signal.json), for: id)
            case .negotiated(let id, let negotiated):
                guard let link = peerSlots[id]?.link, link.phase == .negotiating else { continue }
                negotiatedLink(link, negotiated, now: now)
            case .remoteCandidate(let id, let candidate):
                guard let link = peerSlots[id]?.link else { continue }
                link.noteCandidate(candidate, local: false)
                outputs.append(.addRemoteCandidate(id, candidate))
            case .remoteCandidatesDone(let id):
                if peerSlots[id]?.link != nil { outputs.append(.remoteCandidatesDone(id)) }
            case .candidateLimitReached(let id, let limit):
                outputs.append(.note(.tooManyCandidates(from: id, name: roster[id]?.name ?? id.rawValue, limit: limit)))
            case .failed(let id, let error):
                if let link = peerSlots[id]?.link { disconnect(link, .negotiationFailed(error.description), now: now) }
            case .close(let id):
                guard let link = peerSlots[id]?.link else { continue }
                peerSlots[id]?.link = nil
                if link.phase == .connected { report(disconnected: link, .left) }
                if link.phase != .disconnected { teardown(link) }
                link.end()
            }
        }
    }

    private func negotiatedLink(_ link: Link, _ negotiated: NegotiatedLink, now: Instant) {
        outputs.append(.setRemoteCredentials(link.id, ufrag: negotiated.remoteUfrag, pwd: negotiated.remotePwd))
        for candidate in negotiated.remoteCandidates {
            link.noteCandidate(candidate, local: false)
            outputs.append(.addRemoteCandidate(link.id, candidate))
        }
        handle(.negotiated(negotiated), on: link, now: now)
    }

    /// What every link is made with, from the configuration.
    private var linkSettings: Link.Settings {
        Link.Settings(security: security, congestionControl: configuration.congestionControl, receivesAudio: configuration.receivesAudio,
                      receivesVideo: configuration.receivesVideo, connectTimeout: configuration.connectTimeout)
    }

    /// A link's signals and gathering wait until the driver has made its agent: an offer or
    /// answer must not name an agent that does not exist (the peer would wait for it until the
    /// connect timeout).
    private func emitOnceTheAgentIsUp(_ output: Output, for id: ParticipantID) {
        if peerSlots[id]?.link?.holdUntilTheAgentIsUp(output) != true { outputs.append(output) }
    }

    func iceStarted(_ id: ParticipantID) {
        guard let link = peerSlots[id]?.link, !link.agentStarted else { return }
        outputs.append(contentsOf: link.agentIsUp())
    }

    /// The driver could not make the agent: the link fails now, its offer or answer unsent,
    /// rather than at the connect timeout.
    func iceUnavailable(_ id: ParticipantID, reason: String, now: Instant) {
        guard let link = peerSlots[id]?.link, !link.agentStarted else { return }
        link.agentIsUnavailable()
        disconnect(link, .iceUnavailable(reason), now: now, restart: false)
    }

    /// We are leaving: every link closes (DTLS close_notify goes out first) and nothing more is reported.
    func leave() {
        isLeaving = true
        for link in linksInOrder where link.phase != .disconnected {
            // Said before the channels close: a peer with no rendezvous left hears it this way.
            if link.phase == .connected { link.sendControl(.object(["type": "bye"])) }
            link.end()
            teardown(link)
        }
        peerSlots.removeAll()
        nextStatsAt = nil
        connectDeadline = nil
    }
}
