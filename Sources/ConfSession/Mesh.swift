import ConfWire

/// Who negotiates with whom in a room (DESIGN.md): the newcomer offers to everyone already there,
/// nobody else offers, so offers never cross (no glare). One `PeerNegotiator` per other
/// participant; events from the rendezvous go in, signals and link set-ups come out, tagged with
/// the peer. Pure: no I/O, no clock.
public final class Mesh {
    public enum Output: Equatable, Sendable {
        /// Start a transport (ICE agent, DTLS) for this peer; we control ICE when we offer.
        case open(ParticipantID, controlling: Bool)
        case signal(ParticipantID, PeerSignal)
        case negotiated(ParticipantID, NegotiatedLink)
        case remoteCandidate(ParticipantID, IceCandidate)
        case remoteCandidatesDone(ParticipantID)
        /// The peer sent more candidates than one link may have; the rest are ignored.
        case candidateLimitReached(ParticipantID, Int)
        case failed(ParticipantID, NegotiationError)
        /// Tear down everything for this peer.
        case close(ParticipantID)
    }

    private let makeEndpoint: (ParticipantID, _ controlling: Bool) -> LocalEndpoint
    private let sessionID: UInt64
    private var negotiators: [ParticipantID: PeerNegotiator] = [:]
    /// Each peer's role as the rendezvous gave it: what we accept from the peer follows it.
    private var roles: [ParticipantID: Role] = [:]
    private var outputs: [Output] = []

    /// `makeEndpoint` gives the local parameters for the link to a peer (fresh ICE credentials
    /// each); it is where the owner creates that link's ICE agent, controlling when we offer.
    public init(sessionID: UInt64, makeEndpoint: @escaping (ParticipantID, _ controlling: Bool) -> LocalEndpoint) {
        self.sessionID = sessionID
        self.makeEndpoint = makeEndpoint
    }

    public var peers: [ParticipantID] { Array(negotiators.keys) }

    /// We joined and found `peers` already there: we offer to each.
    public func joined(peers: [Participant]) {
        for peer in peers {
            roles[peer.id] = peer.role
            add(peer.id, offering: true)
        }
    }

    /// Someone joined after us: they will offer.
    public func peerJoined(_ peer: Participant) {
        roles[peer.id] = peer.role
        add(peer.id, offering: false)
    }

    public func peerLeft(_ id: ParticipantID) {
        guard negotiators.removeValue(forKey: id) != nil else { return }
        roles[id] = nil
        outputs.append(.close(id))
    }

    public func received(_ signal: PeerSignal, from id: ParticipantID) {
        guard var negotiator = negotiators[id] else { return }  // a peer we no longer know: late, harmless
        if negotiator.isRepeat(signal) { return }  // relayed twice: already taken
        // A fresh offer on a link we answered before: the offerer is restarting it (its link
        // died while we both stayed in the room). Start over as the answerer.
        if case .offer = signal, !negotiator.isOfferer, negotiator.isNegotiated || negotiator.hasFailed {
            negotiators[id] = nil
            add(id, offering: false)
            negotiator = negotiators[id]!
        }
        negotiator.handle(signal)
        drain(id, negotiator)
    }

    /// Sets up the link to `id` again from scratch (new ICE credentials, new offer). Only the side
    /// that offered restarts; the other answers the new offer. Returns whether it restarted.
    @discardableResult
    public func restart(_ id: ParticipantID) -> Bool {
        guard let negotiator = negotiators[id], negotiator.isOfferer else { return false }
        negotiators[id] = nil
        add(id, offering: true)
        return true
    }

    /// Whether we offered the link to `id` (and so are the side that sets it up again).
    public func isOfferer(to id: ParticipantID) -> Bool { negotiators[id]?.isOfferer ?? false }

    /// The link to `id` was given up on (it failed or timed out) by us, the answerer: the peer's
    /// next offer starts a fresh link instead of landing on the dead one.
    public func abandon(_ id: ParticipantID) {
        negotiators[id]?.abandon()
    }

    public func localCandidate(_ candidate: IceCandidate, for id: ParticipantID) {
        guard let negotiator = negotiators[id] else { return }
        negotiator.localCandidate(candidate)
        drain(id, negotiator)
    }

    public func localGatheringDone(for id: ParticipantID) {
        guard let negotiator = negotiators[id] else { return }
        negotiator.localGatheringDone()
        drain(id, negotiator)
    }

    public func pollOutput() -> Output? {
        outputs.isEmpty ? nil : outputs.removeFirst()
    }

    private func add(_ id: ParticipantID, offering: Bool) {
        guard negotiators[id] == nil else { return }
        var local = makeEndpoint(id, offering)
        local.peerRole = roles[id] ?? .publisher
        let negotiator = PeerNegotiator(local: local, isOfferer: offering, sessionID: sessionID)
        negotiators[id] = negotiator
        outputs.append(.open(id, controlling: offering))
        negotiator.start()
        drain(id, negotiator)
    }

    private func drain(_ id: ParticipantID, _ negotiator: PeerNegotiator) {
        while let output = negotiator.pollOutput() {
            switch output {
            case .send(let signal): outputs.append(.signal(id, signal))
            case .negotiated(let link): outputs.append(.negotiated(id, link))
            case .remoteCandidate(let candidate): outputs.append(.remoteCandidate(id, candidate))
            case .remoteCandidatesDone: outputs.append(.remoteCandidatesDone(id))
            case .candidateLimitReached(let limit): outputs.append(.candidateLimitReached(id, limit))
            case .failed(let error): outputs.append(.failed(id, error))
            }
        }
    }
}
