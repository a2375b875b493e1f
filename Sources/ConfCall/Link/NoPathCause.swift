import ConfWire

/// Why a link found no network path, as far as its candidates tell (RFC 8445 section 5.1.1): the
/// kinds each side gathered say whether it is behind a NAT and whether it had a relay, and a
/// server-reflexive candidate's port beside the port it came from says whether the NAT changed
/// it. The words name the cure.
public enum NoPathCause: Equatable, Sendable {
    /// Each side learnt its address outside a NAT (a server-reflexive candidate) and no relay
    /// was there, yet no check between them was answered. `portsRewritten`: a NAT was seen to
    /// give another port than the one sent from, as NATs that map each destination to a port of
    /// its own (symmetric NATs) do.
    case bothBehindNAT(portsRewritten: Bool)
    /// One side found no address outside its network (no STUN answer) and had no relay.
    case noOutsideAddress(here: Bool)
    /// A relay was there, and still no check went through.
    case relayFailed
    /// The candidates say nothing more (none from the peer, or only host candidates on a LAN).
    case unknown

    /// Candidates one side may hold for a link: enough for any real agent (a few per interface).
    static let keptCandidates = 32

    public static func diagnose(local: [IceCandidate], remote: [IceCandidate]) -> NoPathCause {
        let localKinds = Set(local.map(\.kind)), remoteKinds = Set(remote.map(\.kind))
        if localKinds.contains(.relay) || remoteKinds.contains(.relay) { return .relayFailed }
        guard !local.isEmpty, !remote.isEmpty else { return .unknown }
        let rewritten = (local + remote).contains { $0.kind == .srflx && $0.relatedPort != nil && $0.relatedPort != $0.port }
        switch (localKinds.contains(.srflx), remoteKinds.contains(.srflx)) {
        case (true, true): return .bothBehindNAT(portsRewritten: rewritten)
        case (false, true) where Self.behindNAT(local): return .noOutsideAddress(here: true)
        case (true, false) where Self.behindNAT(remote): return .noOutsideAddress(here: false)
        default: return .unknown
        }
    }

    /// Whether every host address is a private one (RFC 1918, RFC 4193): then there is a NAT (or
    /// no way out) between it and the internet.
    private static func behindNAT(_ candidates: [IceCandidate]) -> Bool {
        let hosts = candidates.filter { $0.kind == .host }
        return !hosts.isEmpty && hosts.allSatisfy { candidate in
            if let v4 = IPv4Address(candidate.address) { return v4.scope != .public }
            return candidate.address.lowercased().hasPrefix("fd") || candidate.address.lowercased().hasPrefix("fc")
        }
    }

    static let relayCure = "a relay is needed: a TURN server, which the rendezvous's operator hands out (conf rendezvous --turn), "
        + "or which each side names with --turn USER:PASS@HOST:PORT (add ?transport=tcp to reach it over TCP)"

    /// What happened and what to do, for `no-path`.
    public var words: String {
        switch self {
        case .bothBehindNAT(let rewritten):
            "no network path to the peer: you are both behind NATs (each found its address outside from the STUN server), and no check "
                + "between those addresses was answered"
                + (rewritten ? ": a NAT changed the port sent from, as NATs that give each destination its own port (symmetric NATs) do" : "")
                + "; such NATs let in only answers from where they sent, so " + Self.relayCure
        case .noOutsideAddress(let here):
            "no network path to the peer: \(here ? "this side" : "the peer") is behind a NAT and found no address outside it "
                + "(no STUN answer: UDP may be blocked there); " + Self.relayCure
        case .relayFailed:
            // A relay candidate means the allocation worked: the server is reached and takes the credentials.
            "no network path to the peer, even through the TURN relay: it gave addresses, but no check through it was answered — "
                + "try --relay-only on both sides (every check then goes through the relay), or another TURN server"
        case .unknown:
            DisconnectReason.noPathAdvice
        }
    }
}
