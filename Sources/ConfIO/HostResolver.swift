#if canImport(Glibc)
import Glibc
#endif

/// Name resolution for the few places that need an IP address (libnice takes STUN/TURN servers
/// by address). Blocking: used at call set-up, never on the media path.
public enum HostResolver {
    /// The first IPv4 address of `host` (an address is returned as is), or nil.
    public static func ipv4(_ host: String) -> String? {
        var hints = addrinfo()
        hints.ai_family = AF_INET
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &result) == 0, let first = result else { return nil }
        defer { freeaddrinfo(result) }
        guard let address = first.pointee.ai_addr else { return nil }
        var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
        address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { sin in
            var raw = sin.pointee.sin_addr
            _ = inet_ntop(AF_INET, &raw, &text, socklen_t(text.count))
        }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
