import ConfWire

/// Offer/answer and trickle ICE with one peer (JSEP, RFC 8829; trickle, RFC 8838), without I/O.
///
///     offerer:  idle ──start──▶ offered ──answer──▶ negotiated
///     answerer: idle ──offer──▶ negotiated (answer sent)
///     any state ──bad SDP / fingerprint missing / unexpected signal──▶ failed
///
/// Candidates we gather before our description is out wait for it; the peer's candidates that
/// arrive before its description wait for that. Outputs are drained with `pollOutput()`.
public final class PeerNegotiator {
    public enum Output: Equatable, Sendable {
        case send(PeerSignal)
        /// Negotiation is done: set up ICE and DTLS with this.
        case negotiated(NegotiatedLink)
        case remoteCandidate(IceCandidate)
        case remoteCandidatesDone
        /// The peer sent more than `maxRemoteCandidates`: the rest are refused (said once).
        case candidateLimitReached(Int)
        case failed(NegotiationError)
    }

    /// The most candidates one peer may give for one link. A real peer has a handful (host,
    /// server-reflexive and relayed, per interface); each one costs connectivity checks, so a
    /// hostile peer must not be able to make us send checks to thousands of addresses.
    public static let maxRemoteCandidates = 50

    enum State {
        case idle
        case offered(SessionDescription)
        case negotiated(transportMid: String)
        case failed
    }

    public let isOfferer: Bool
    private let local: LocalEndpoint
    private let sessionID: UInt64
    private var state = State.idle
    private var pendingLocal: [PeerSignal] = []
    private var pendingRemote: [PeerSignal] = []
    private var outputs: [Output] = []
    private var remoteCandidateCount = 0
    /// The offer or answer we took, to know it again if the rendezvous delivers it twice.
    private var takenDescription: String?
    private var remoteCandidatesSeen: Set<IceCandidate> = []

    public init(local: LocalEndpoint, isOfferer: Bool, sessionID: UInt64) {
        self.local = local
        self.isOfferer = isOfferer
        self.sessionID = sessionID
    }

    public var isNegotiated: Bool { if case .negotiated = state { true } else { false } }
    public var hasFailed: Bool { if case .failed = state { true } else { false } }

    /// A description we already took, arriving again (a duplicate relay, not a new offer).
    public func isRepeat(_ signal: PeerSignal) -> Bool {
        switch signal {
        case .offer(let text), .answer(let text): text == takenDescription
        case .candidate, .endOfCandidates, .restart: false
        }
    }

    /// The offerer's first step: sends the offer.
    public func start() {
        guard isOfferer, case .idle = state else { return }
        let offer = SDPNegotiation.offer(from: local, sessionID: sessionID)
        state = .offered(offer)
        outputs.append(.send(.offer(offer.serialized)))
        flushLocal(mid: "0")
    }

    public func handle(_ signal: PeerSignal) {
        switch (state, signal) {
        case (.failed, _), (_, .restart):  // a restart request is the engine's (CallEngine+Network)
            return
        case (.idle, .offer(let text)) where !isOfferer:
            do {
                let offer = try parse(text)
                takenDescription = text
                var (answer, link) = try SDPNegotiation.answer(to: offer, from: local, sessionID: sessionID)
                link.remoteCandidates = admit(link.remoteCandidates)
                state = .negotiated(transportMid: link.transportMid)
                outputs.append(.send(.answer(answer.serialized)))
                outputs.append(.negotiated(link))
                flushLocal(mid: link.transportMid)
                flushRemote()
            } catch {
                fail(error)
            }
        case (.offered(let offer), .answer(let text)):
            do {
                var link = try SDPNegotiation.accept(answer: try parse(text), to: offer)
                takenDescription = text
                link.remoteCandidates = admit(link.remoteCandidates)
                state = .negotiated(transportMid: link.transportMid)
                outputs.append(.negotiated(link))
                flushRemote()
            } catch {
                fail(error)
            }
        case (.negotiated, .candidate(_, let candidate)):
            if !admit([candidate]).isEmpty { outputs.append(.remoteCandidate(candidate)) }
        case (.negotiated, .endOfCandidates):
            outputs.append(.remoteCandidatesDone)
        case (_, .candidate), (_, .endOfCandidates):
            // Held until the description comes; bounded like the candidates themselves.
            guard pendingRemote.count <= Self.maxRemoteCandidates else { return }
            pendingRemote.append(signal)
        case (_, .offer):
            fail(NegotiationError(isOfferer ? "the peer sent an offer although we offered (glare): conf's newcomer offers, nobody else"
                                            : "the peer sent a second offer; renegotiation is not supported"))
        case (_, .answer):
            fail(NegotiationError("the peer sent an answer to no offer"))
        }
    }

    /// A candidate our ICE agent gathered.
    public func localCandidate(_ candidate: IceCandidate) {
        enqueueLocal(.candidate(mid: "", candidate))
    }

    public func localGatheringDone() {
        enqueueLocal(.endOfCandidates)
    }

    /// The owner gave the link up: nothing more is negotiated on it (no output).
    public func abandon() {
        state = .failed
        pendingLocal.removeAll()
        pendingRemote.removeAll()
    }

    public func pollOutput() -> Output? {
        outputs.isEmpty ? nil : outputs.removeFirst()
    }

    /// The candidates that fit under the cap; the first refusal is reported.
    private func admit(_ offered: [IceCandidate]) -> [IceCandidate] {
        // A candidate sent twice is one candidate: not added again, not counted again. (The set
        // holds at most the admitted ones: past the cap every candidate is refused anyway.)
        var candidates: [IceCandidate] = []
        for candidate in offered where !remoteCandidatesSeen.contains(candidate) {
            if remoteCandidatesSeen.count < Self.maxRemoteCandidates { remoteCandidatesSeen.insert(candidate) }
            candidates.append(candidate)
        }
        let room = max(0, Self.maxRemoteCandidates - remoteCandidateCount)
        remoteCandidateCount += candidates.count
        if candidates.count > room && remoteCandidateCount - candidates.count <= Self.maxRemoteCandidates {
            outputs.append(.candidateLimitReached(Self.maxRemoteCandidates))
        }
        return Array(candidates.prefix(room))
    }

    private func enqueueLocal(_ signal: PeerSignal) {
        switch state {
        case .offered: emitLocal(signal, mid: "0")
        case .negotiated(let mid): emitLocal(signal, mid: mid)
        case .idle: pendingLocal.append(signal)
        case .failed: break
        }
    }

    private func emitLocal(_ signal: PeerSignal, mid: String) {
        if case .candidate(_, let candidate) = signal {
            outputs.append(.send(.candidate(mid: mid, candidate)))
        } else {
            outputs.append(.send(signal))
        }
    }

    private func flushLocal(mid: String) {
        for signal in pendingLocal { emitLocal(signal, mid: mid) }
        pendingLocal.removeAll()
    }

    private func flushRemote() {
        let queued = pendingRemote
        pendingRemote.removeAll()
        for signal in queued { handle(signal) }
    }

    private func parse(_ text: String) throws(NegotiationError) -> SessionDescription {
        do {
            return try SessionDescription.parse(text)
        } catch {
            throw NegotiationError("the peer's SDP is invalid: \(error)")
        }
    }

    private func fail(_ error: NegotiationError) {
        state = .failed
        outputs.append(.failed(error))
    }
}
