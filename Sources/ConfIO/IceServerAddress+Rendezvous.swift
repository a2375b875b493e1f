import ConfWire

/// ICE servers as the rendezvous's `joined` message and configuration carry them (URLs, RFC 7064
/// and RFC 7065) and as libnice takes them (resolved IP addresses).
extension IceServerAddress {
    /// The rendezvous's `ice_servers` ("stun:host:port", "turn:host:port?transport=udp"), resolved;
    /// unusable entries are skipped.
    public static func addresses(from iceServers: [IceServer]) -> [IceServerAddress] {
        iceServers.flatMap { server in
            server.urls.compactMap { url -> IceServerAddress? in
                let isTURN = url.hasPrefix("turn:")
                guard isTURN || url.hasPrefix("stun:") else { return nil }
                let rest = url.dropFirst(5).prefix { $0 != "?" }
                guard case .success(let endpoint) = HostPort.parse(String(rest), defaultHost: ""),
                      let ip = HostResolver.address(endpoint.host) else { return nil }
                let port = endpoint.port == HostPort.defaultPort && !rest.contains(":") ? 3478 : endpoint.port
                if isTURN {
                    guard let user = server.username, let pass = server.credential else { return nil }
                    return IceServerAddress(host: ip, port: port, credentials: (user, pass), overTCP: url.hasSuffix("?transport=tcp"))
                }
                return IceServerAddress(host: ip, port: port)
            }
        }
    }

    /// The inverse of `addresses(from:)`: our ICE servers as the rendezvous hands them out.
    public static func iceServers(_ addresses: [IceServerAddress]) -> [IceServer] {
        addresses.map { server in
            let url = "\(server.credentials == nil ? "stun" : "turn"):\(HostPort(host: server.host, port: server.port))"
                + (server.overTCP ? "?transport=tcp" : "")
            return IceServer(urls: [url], username: server.credentials?.username, credential: server.credentials?.password)
        }
    }
}
