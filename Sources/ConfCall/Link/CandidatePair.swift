import ConfWire

/// The pair ICE selected for a link: what `peer-connected` shows as the path.
public struct CandidatePair: Equatable, Sendable {
    public var local: IceCandidate
    public var remote: IceCandidate

    public init(local: IceCandidate, remote: IceCandidate) {
        self.local = local
        self.remote = remote
    }

    /// "192.0.2.1:5000" or "[2001:db8::1]:5000", as `peer-connected` shows them.
    public var localEndpoint: String { HostPort(host: local.address, port: local.port).description }
    public var remoteEndpoint: String { HostPort(host: remote.address, port: remote.port).description }

    /// "host", "srflx", "prflx" or "relay": the least direct kind on the pair.
    public var path: String {
        let kinds = [local.kind, remote.kind]
        if kinds.contains(.relay) { return "relay" }
        if kinds.contains(.srflx) { return "srflx" }
        if kinds.contains(.prflx) { return "prflx" }
        return "host"
    }
}
