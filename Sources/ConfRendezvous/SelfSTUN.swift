import ConfWire

/// The rendezvous as its own participants' STUN server: the `stun:` URL for a client that reached
/// it with a given Host header. The client connected to that host and port over TCP; the same
/// port number answers STUN over UDP (RFC 8489 section 18.6 lets a server use any port).
enum SelfSTUN {
    /// `stun:HOST:PORT` for a Host header that names a port, or nil when it names none (the
    /// request came through something on port 80 or 443, a proxy or load balancer, whose UDP port
    /// is not ours) or is not a plain host name or IP address. The header is the client's own
    /// words, handed back to that client alone; still, only a clean host and port are used.
    static func server(hostHeader: String) -> IceServer? {
        guard hostHeader.utf8.count <= 255, hostHeader.contains(":"),
              !hostHeader.hasSuffix("]"),  // "[v6]" without a port
              let endpoint = HostPort.server(hostHeader, defaultPort: 0) else { return nil }
        let isName = endpoint.host.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            !label.isEmpty && label.count <= 63 && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
        }
        let isIPv6 = endpoint.host.contains(":") && endpoint.host.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." }
        guard isName || isIPv6 else { return nil }
        return IceServer(urls: ["stun:\(endpoint)"])
    }
}
