/// A host and port as users type them: "192.0.2.5:7373", "[2001:db8::1]:7373", "example.org",
/// ":7373" (every interface).
public struct HostPort: Hashable, Sendable, CustomStringConvertible {
    public static let defaultPort: UInt16 = 7373

    public var host: String
    public var port: UInt16

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// The address in `text` (a host, host:port or [v6]:port), or a failure saying what is wrong with it.
    /// Without a port, `defaultPort` (the rendezvous's; STUN and TURN have their own).
    public static func parse(_ text: String, defaultHost: String = "0.0.0.0", defaultPort: UInt16 = defaultPort) -> Result<HostPort, AddressProblem> {
        var host: Substring
        var portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return .failure(.init("'\(text)': missing ']' after the IPv6 address")) }
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            if !rest.isEmpty {
                guard rest.first == ":" else { return .failure(.init("'\(text)': expected ':PORT' after ']'")) }
                portText = rest.dropFirst()
            }
        } else if text.filter({ $0 == ":" }).count > 1 {
            return .failure(.init("'\(text)': write an IPv6 address in brackets, like [2001:db8::1]:7373"))
        } else if let colon = text.firstIndex(of: ":") {
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        } else {
            host = Substring(text)
        }
        if host.isEmpty { host = Substring(defaultHost) }
        guard host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == ":" || $0 == "_") }) else {
            return .failure(.init("'\(text)': '\(host)' is not a host name or address"))
        }
        var port = defaultPort
        if let portText {
            guard let p = UInt16(portText) else { return .failure(.init("'\(text)': the port must be a number from 0 to 65535")) }
            port = p
        }
        return .success(HostPort(host: String(host), port: port))
    }

    /// STUN's and TURN's own ports (RFC 8489 §18.6, RFC 8656 §16), for a server given without one.
    public static let stunPort: UInt16 = 3478, turnsPort: UInt16 = 5349

    /// A server's address in `text`: a host must be named and the port may not be 0; without a
    /// port, `defaultPort`. Nil otherwise.
    public static func server(_ text: String, defaultPort: UInt16) -> HostPort? {
        guard case .success(let endpoint) = parse(text, defaultHost: "", defaultPort: defaultPort),
              !endpoint.host.isEmpty, endpoint.port != 0 else { return nil }
        return endpoint
    }

    /// "host:port", with brackets around an IPv6 address.
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

public struct AddressProblem: Error, Equatable, Sendable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}

/// Where a client finds a rendezvous: `--server` as "host:port", or a ws://, wss://, http:// or
/// https:// URL. TLS unless the URL says ws:// or http://: "host:port" alone is wss://, so that a
/// pin never crosses the network in clear unless someone wrote that it should.
public struct RendezvousAddress: Hashable, Sendable, CustomStringConvertible {
    public var endpoint: HostPort
    public var secure: Bool

    public init(endpoint: HostPort, secure: Bool) {
        self.endpoint = endpoint
        self.secure = secure
    }

    public static func parse(_ text: String) -> Result<RendezvousAddress, AddressProblem> {
        var rest = Substring(text)
        var secure = true
        for (scheme, isSecure) in [("wss://", true), ("https://", true), ("ws://", false), ("http://", false)] where rest.hasPrefix(scheme) {
            rest = rest.dropFirst(scheme.count)
            secure = isSecure
        }
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard !rest.isEmpty else { return .failure(.init("'\(text)': give a host, like 192.0.2.5:7373")) }
        guard !rest.contains("/") else { return .failure(.init("'\(text)': give only a host and port, without a path")) }
        return HostPort.parse(String(rest), defaultHost: "").map { RendezvousAddress(endpoint: $0, secure: secure) }
    }

    public var httpBase: String { (secure ? "https://" : "http://") + endpoint.description }
    public var webSocketURL: String { (secure ? "wss://" : "ws://") + endpoint.description + "/v1/ws" }

    /// The WebSocket for `room`: the id in the query, where a load balancer in front of a
    /// partitioned rendezvous reads which instance holds the room (docs/DEPLOY.md).
    public func webSocketURL(room: RoomID) -> String { webSocketURL + "?room=" + room.rawValue }
    public var createRoomURL: String { httpBase + "/v1/rooms" }

    /// As users should type it in `--server`: the URL, its scheme always written.
    public var description: String { (secure ? "wss://" : "ws://") + endpoint.description }

    /// Whether the host is this machine (a loopback address or `localhost`): a pin sent there in
    /// clear never crosses a network.
    public var isLoopback: Bool {
        let host = endpoint.host.lowercased()
        if host == "localhost" || host == "::1" { return true }
        return IPv4Address(host.hasPrefix("::ffff:") ? String(host.dropFirst(7)) : host)?.octets.first == 127
    }
}
