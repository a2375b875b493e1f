/// Why a peer link ended, as a stable code for scripts (`peer-disconnected`'s `code`); the event's
/// `reason` says it in words (`DisconnectReason.words`).
public enum DisconnectCode: String, Sendable, CaseIterable {
    /// The peer left the room or closed the link.
    case left
    /// The peer set the link up again; a new one follows.
    case restarting
    /// ICE found no working candidate pair (often: UDP blocked, or NATs that need TURN).
    case noPath = "no-path"
    /// A working path stopped working (ICE consent lost).
    case pathFailed = "path-failed"
    /// The link did not come up within --connect-timeout.
    case connectTimeout = "connect-timeout"
    /// Nothing authenticated was heard from the peer for too long.
    case silence
    /// The offer or answer could not be used.
    case negotiationFailed = "negotiation-failed"
    /// DTLS or SRTP could not be set up (wrong fingerprint, handshake failure).
    case dtlsFailed = "dtls-failed"
    /// Our network or the peer's changed (an address came or went): the link is set up again on
    /// the new addresses.
    case networkChanged = "network-changed"
}

/// Why a peer link ended, with what the words need: the code plus typed details. The words are
/// made here and nowhere else, so the JSON `reason` and the human line always agree.
public enum DisconnectReason: Equatable, Sendable {
    case left
    /// The peer closed the link (DTLS close_notify) while still in the room: it left, or gave
    /// the link up (it stopped hearing us); a new link follows unless it left.
    case closedByPeer
    case restarting
    /// No ICE check was answered; `within` is the connect timeout when that is what noticed it;
    /// `cause`, what the link's candidates say of why.
    case noPath(within: Duration?, cause: NoPathCause = .unknown)
    case pathFailed
    case connectTimeout(Duration, stalledAt: ConnectStage)
    /// Nothing authenticated heard for `limit`.
    case silence(limit: Duration)
    /// What the negotiation refused (may quote the peer's SDP: escaped on a terminal).
    case negotiationFailed(String)
    /// The driver could not start an ICE agent for the link (the system's words).
    case iceUnavailable(String)
    case dtlsFailed(DTLSStage, detail: String)
    /// An address came or went here (`here`) or at the peer's end: set up again at once.
    case networkChanged(here: Bool)

    /// Where a link that timed out was held up.
    public enum ConnectStage: Sendable {
        /// The peer never answered the offer.
        case unanswered
        /// The network path works but the DTLS handshake did not finish.
        case handshake
    }

    /// Which part of the encryption could not be set up.
    public enum DTLSStage: Sendable {
        case setup, handshake, srtp
    }

    public var code: DisconnectCode {
        switch self {
        case .left, .closedByPeer: .left
        case .restarting: .restarting
        case .noPath, .iceUnavailable: .noPath
        case .pathFailed: .pathFailed
        case .connectTimeout: .connectTimeout
        case .silence: .silence
        case .negotiationFailed: .negotiationFailed
        case .dtlsFailed: .dtlsFailed
        case .networkChanged: .networkChanged
        }
    }

    /// The reason in words, for `peer-disconnected`'s `reason` and its human line.
    public var words: String {
        switch self {
        case .left: "left"
        case .closedByPeer: "the peer closed the link"
        case .restarting: "the peer is setting the link up again"
        case .noPath(nil, let cause): cause.words
        case .noPath(let timeout?, let cause): "could not connect within \(timeout.secondsForPeople) s: " + cause.words
        case .pathFailed: "the network path failed (ICE)"
        case .connectTimeout(let timeout, .unanswered):
            "could not connect within \(timeout.secondsForPeople) s: the peer never answered the offer"
        case .connectTimeout(let timeout, .handshake):
            "could not connect within \(timeout.secondsForPeople) s: the network path works but the encrypted handshake (DTLS) did not finish"
        case .silence(let limit): "nothing heard for \(limit.secondsForPeople) s: the peer vanished or the network broke"
        case .negotiationFailed(let detail): detail
        case .iceUnavailable(let detail): "cannot start ICE: \(detail)"
        case .dtlsFailed(.setup, let detail): "cannot set up DTLS: \(detail)"
        case .dtlsFailed(.srtp, let detail): "cannot set up SRTP: \(detail)"
        case .dtlsFailed(.handshake, let detail): detail
        case .networkChanged(here: true): "this machine's network changed: connecting again on the new addresses"
        case .networkChanged(here: false): "the peer's network changed: connecting again on its new addresses"
        }
    }

    /// What to tell the user when ICE found no pair at all.
    public static let noPathAdvice = "no network path to the peer: no ICE check was answered, so UDP between you is blocked or "
        + "filtered (a firewall, or NATs that need a relay) — try --turn USER:PASS@HOST:PORT with a TURN server both of you can reach (add ?transport=tcp to reach it over TCP)"
}

extension Duration {
    /// "2" or "2.5": a duration in seconds for people.
    public var secondsForPeople: String {
        let value = milliseconds / 1000
        return value == value.rounded() ? String(Int(value)) : String(value)
    }
}
