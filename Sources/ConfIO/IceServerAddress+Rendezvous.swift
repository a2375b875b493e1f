import ConfWire

/// ICE servers as the rendezvous's `joined` message and configuration carry them (URLs, RFC 7064
/// and RFC 7065) and as libnice takes them (resolved IP addresses).
extension IceServerAddress {
    /// The rendezvous's `ice_servers` ("stun:host:port", "turn:host:port?transport=udp",
    /// "turns:host:port"), resolved; unusable entries are skipped.
    public static func addresses(from iceServers: [IceServer]) -> [IceServerAddress] {
        iceServers.flatMap { server in
            server.urls.compactMap { url -> IceServerAddress? in
                let overTLS = url.hasPrefix("turns:")
                let isTURN = url.hasPrefix("turn:") || overTLS
                guard isTURN || url.hasPrefix("stun:") else { return nil }
                let rest = url.dropFirst(overTLS ? 6 : 5).prefix { $0 != "?" }
                guard case .success(let endpoint) = HostPort.parse(String(rest), defaultHost: ""),
                      let ip = HostResolver.address(endpoint.host) else { return nil }
                // RFC 7065 section 3: 3478 by default, 5349 for turns:.
                let port = endpoint.port == HostPort.defaultPort && !rest.contains(":") ? (overTLS ? 5349 : 3478) : endpoint.port
                if isTURN {
                    guard let user = server.username, let pass = server.credential else { return nil }
                    return IceServerAddress(host: ip, port: port, credentials: (user, pass), overTCP: url.hasSuffix("?transport=tcp"),
                                            tlsServerName: overTLS ? endpoint.host : nil)
                }
                return IceServerAddress(host: ip, port: port)
            }
        }
    }

    /// The inverse of `addresses(from:)`: our ICE servers as the rendezvous hands them out.
    public static func iceServers(_ addresses: [IceServerAddress]) -> [IceServer] {
        addresses.map { server in
            if let name = server.tlsServerName {
                return IceServer(urls: ["turns:\(HostPort(host: name, port: server.port))?transport=tcp"],
                                 username: server.credentials?.username, credential: server.credentials?.password)
            }
            let url = "\(server.credentials == nil ? "stun" : "turn"):\(server.endpoint)"
                + (server.overTCP ? "?transport=tcp" : "")
            return IceServer(urls: [url], username: server.credentials?.username, credential: server.credentials?.password)
        }
    }
}
