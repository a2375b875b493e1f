#if canImport(Glibc)
import Glibc
#endif

/// The machine's addresses that other hosts could reach: where ICE gathers host candidates and
/// what `conf host` advertises.
public enum NetworkInterfaces {
    /// IPv4 addresses of interfaces that are up, loopback excluded, in the kernel's order.
    public static func reachableIPv4Addresses() -> [String] { addresses(families: [AF_INET]) }

    /// IPv6 addresses of interfaces that are up: global and unique-local ones. Loopback, link-local
    /// (fe80::/10: they need a scope id, which SDP candidates cannot carry) and IPv4-mapped ones are
    /// left out.
    public static func reachableIPv6Addresses() -> [String] { addresses(families: [AF_INET6]) }

    /// Both, IPv4 first, from one look at the interfaces.
    public static func reachableAddresses() -> [String] {
        let all = addresses(families: [AF_INET, AF_INET6])
        return all.filter { !$0.contains(":") } + all.filter { $0.contains(":") }
    }

    private static func addresses(families: [Int32]) -> [String] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        var result: [String] = []
        for entry in sequence(first: first, next: { $0.pointee.ifa_next }) {
            let flags = Int32(entry.pointee.ifa_flags)
            guard let address = entry.pointee.ifa_addr, families.contains(Int32(address.pointee.sa_family)),
                  flags & Int32(IFF_UP) != 0, flags & Int32(IFF_LOOPBACK) == 0, let text = Self.text(address) else { continue }
            if !result.contains(text) { result.append(text) }
        }
        return result
    }

    /// The address as text, or nil for an IPv6 address ICE should not use.
    private static func text(_ address: UnsafeMutablePointer<sockaddr>) -> String? {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        if address.pointee.sa_family == UInt16(AF_INET) {
            address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { sin in
                var raw = sin.pointee.sin_addr
                _ = inet_ntop(AF_INET, &raw, &text, socklen_t(text.count))
            }
        } else {
            let usable = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { sin6 -> Bool in
                var raw = sin6.pointee.sin6_addr
                let bytes = withUnsafeBytes(of: &raw) { Array($0) }
                let linkLocal = bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80
                let mapped = bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF
                guard !linkLocal, !mapped else { return false }
                _ = inet_ntop(AF_INET6, &raw, &text, socklen_t(text.count))
                return true
            }
            guard usable else { return nil }
        }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
