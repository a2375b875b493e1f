#if canImport(Glibc)
import Glibc
#endif

/// Where this machine's IPv4 traffic leaves it: the default gateway (the home router, to which
/// PCP and NAT-PMP requests go) and the local address a packet to it leaves from (the address
/// the router forwards mapped ports to).
public struct DefaultRoute: Equatable, Sendable {
    public var gateway: String
    public var localAddress: String

    /// The default route of the main table, from /proc/net/route; nil when there is none.
    public static func current() -> DefaultRoute? {
        guard let text = SmallTextFile.read("/proc/net/route", limit: 1 << 20), let gateway = gateway(inRouteTable: text),
              let local = localAddress(towards: gateway) else { return nil }
        return DefaultRoute(gateway: gateway, localAddress: local)
    }

    /// The gateway of the first default route (destination 0, mask 0, flags RTF_UP|RTF_GATEWAY)
    /// in /proc/net/route's text, whose addresses are 32-bit hex in the machine's byte order.
    static func gateway(inRouteTable text: String) -> String? {
        for line in text.split(separator: "\n").dropFirst() {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count >= 8, fields[1] == "00000000", fields[7] == "00000000",
                  let flags = UInt32(fields[3], radix: 16), flags & 0x3 == 0x3,
                  let raw = UInt32(fields[2], radix: 16), raw != 0 else { continue }
            let bytes = withUnsafeBytes(of: raw) { Array($0) }  // already in network order in memory
            return bytes.map(String.init).joined(separator: ".")
        }
        return nil
    }

    /// The source address the kernel picks for `destination`: a UDP socket connected to it (no
    /// packet is sent) is bound to that address.
    static func localAddress(towards destination: String) -> String? {
        guard let target = SocketAddress(destination, port: 9) else { return nil }
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        guard target.withSockaddr({ connect(fd, $0, $1) }) == 0 else { return nil }
        var local = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        guard named == 0 else { return nil }
        return SocketAddress(local)?.host
    }
}
