#if canImport(Glibc)
import Glibc
#endif

/// Name resolution for the few places that need an IP address (libnice takes STUN/TURN servers
/// by address). Blocking: used at call set-up, never on the media path.
public enum HostResolver {
    /// The first address of `host` (an address literal is returned as is): IPv4 when it has one
    /// (most TURN deployments), else IPv6; only families this machine has an address in
    /// (AI_ADDRCONFIG). Nil when it does not resolve.
    public static func address(_ host: String) -> String? {
        if isAddressLiteral(host) { return host }
        return lookup(host, family: AF_INET) ?? lookup(host, family: AF_INET6)
    }

    /// Whether `host` is an IPv4 or IPv6 address as text (no name to resolve).
    public static func isAddressLiteral(_ host: String) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16)
        return inet_pton(AF_INET, host, &buffer) == 1 || inet_pton(AF_INET6, host, &buffer) == 1
    }

    /// Whether `host`, an address literal, is an address of this machine: a socket can be bound
    /// to it (EADDRNOTAVAIL says it cannot). Wildcards and loopback are.
    public static func isLocalAddress(_ host: String) -> Bool {
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICHOST
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, "0", &hints, &result) == 0, let first = result else { return false }
        defer { freeaddrinfo(result) }
        let fd = socket(first.pointee.ai_family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return true }  // no socket to try with: let the real bind say
        defer { close(fd) }
        return bind(fd, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 || errno != EADDRNOTAVAIL
    }

    private static func lookup(_ host: String, family: Int32) -> String? {
        var hints = addrinfo()
        hints.ai_family = family
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        hints.ai_flags = AI_ADDRCONFIG
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &result) == 0, let first = result else { return nil }
        defer { freeaddrinfo(result) }
        guard let address = first.pointee.ai_addr else { return nil }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        if family == AF_INET {
            address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { sin in
                var raw = sin.pointee.sin_addr
                _ = inet_ntop(AF_INET, &raw, &text, socklen_t(text.count))
            }
        } else {
            address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { sin6 in
                var raw = sin6.pointee.sin6_addr
                _ = inet_ntop(AF_INET6, &raw, &text, socklen_t(text.count))
            }
        }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
