import ConfCore

/// Whether the gateway lost its mappings between two of its responses, from the epoch time each
/// carries (seconds since its mapping state began) against the client's own clock.
///
/// PCP (RFC 6887 section 8.5): invalid when the server's time went back more than 1 s, or when
/// `client_delta + 2 < server_delta - server_delta / 16` or
/// `server_delta + 2 < client_delta - client_delta / 16`.
/// NAT-PMP (RFC 6886 section 3.6): lost when the epoch is more than 2 s below the previous one plus
/// 7/8 of the time that passed on the client's clock.
public struct GatewayEpoch: Sendable {
    public enum Rule: Sendable { case pcp, natPMP }

    public let rule: Rule
    private var previous: (server: UInt32, client: Instant)?

    public init(rule: Rule) { self.rule = rule }

    /// Records the epoch of a response received at `now`; true when it shows the gateway lost its
    /// state since the previous response (never for the first).
    public mutating func lostState(epochTime: UInt32, now: Instant) -> Bool {
        defer { previous = (epochTime, now) }
        guard let previous else { return false }
        let clientDelta = Double(now.since(previous.client).nanosecondsClamped) / 1e9
        let serverDelta = Double(Int64(epochTime) - Int64(previous.server))
        switch rule {
        case .pcp:
            if serverDelta < -1 { return true }
            return clientDelta + 2 < serverDelta - serverDelta / 16 || serverDelta + 2 < clientDelta - clientDelta / 16
        case .natPMP:
            return serverDelta + 2 < clientDelta * 7 / 8
        }
    }
}
