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
        case failed(NegotiationError)
    }

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

    public init(local: LocalEndpoint, isOfferer: Bool, sessionID: UInt64) {
        self.local = local
        self.isOfferer = isOfferer
        self.sessionID = sessionID
    }

    public var isNegotiated: Bool { if case .negotiated = state { true } else { false } }
    public var hasFailed: Bool { if case .failed = state { true } else { false } }

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
        case (.failed, _):
            return
        case (.idle, .offer(let text)) where !isOfferer:
            do {
                let offer = try parse(text)
                let (answer, link) = try SDPNegotiation.answer(to: offer, from: local, sessionID: sessionID)
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
                let link = try SDPNegotiation.accept(answer: try parse(text), to: offer)
                state = .negotiated(transportMid: link.transportMid)
                outputs.append(.negotiated(link))
                flushRemote()
            } catch {
                fail(error)
            }
        case (.negotiated, .candidate(_, let candidate)):
            outputs.append(.remoteCandidate(candidate))
        case (.negotiated, .endOfCandidates):
            outputs.append(.remoteCandidatesDone)
        case (_, .candidate), (_, .endOfCandidates):
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
