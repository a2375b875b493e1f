/// An IPv4 address, as the port-mapping protocols carry it: four octets, most significant first.
/// PCP (RFC 6887 section 5) carries every address in 128 bits; an IPv4 one is IPv4-mapped IPv6,
/// `::ffff:a.b.c.d` (RFC 4291 section 2.5.5.2).
public struct IPv4Address: Hashable, Sendable, CustomStringConvertible {
    /// The address as a 32-bit number: 192.168.1.2 is 0xC0A8_0102.
    public var value: UInt32

    public init(_ value: UInt32) { self.value = value }

    public init(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) {
        value = UInt32(a) << 24 | UInt32(b) << 16 | UInt32(c) << 8 | UInt32(d)
    }

    /// Dotted-quad text, "192.168.1.2"; nil for anything else (no leading zeros, no shorthand).
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var value: UInt32 = 0
        for part in parts {
            guard (1...3).contains(part.count), part.allSatisfy({ $0.isASCII && $0.isNumber }),
                  part.count == 1 || part.first != "0", let octet = UInt8(part) else { return nil }
            value = value << 8 | UInt32(octet)
        }
        self.value = value
    }

    /// 0.0.0.0: "no address" in NAT-PMP, "any" in a PCP suggestion.
    public static let unspecified = IPv4Address(0)

    public var octets: [UInt8] { [UInt8(value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)] }

    /// `::ffff:a.b.c.d`, the 16 bytes PCP sends for this address.
    public var ipv4MappedIPv6: [UInt8] { [UInt8](repeating: 0, count: 10) + [0xFF, 0xFF] + octets }

    /// The IPv4 address inside 16 bytes of IPv4-mapped IPv6; nil when they are not one (a real
    /// IPv6 address, or not 16 bytes).
    public init?(ipv4MappedIPv6 bytes: some Collection<UInt8>) {
        let bytes = Array(bytes)
        guard bytes.count == 16, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF else { return nil }
        self.init(bytes[12], bytes[13], bytes[14], bytes[15])
    }

    public var description: String { octets.map(String.init).joined(separator: ".") }

    /// Where an address can be reached from: what decides whether a router's "external address"
    /// is really on the Internet.
    public enum Scope: Equatable, Sendable {
        /// Routable on the Internet.
        case `public`
        /// Not routable on the Internet: RFC 1918 (10/8, 172.16/12, 192.168/16), link-local
        /// 169.254/16 (RFC 3927), loopback 127/8, "this network" 0/8 other than 0.0.0.0 (RFC 1122),
        /// multicast 224/4 and the reserved 240/4 with broadcast (RFC 1112).
        case `private`
        /// 100.64/10, the carrier-grade NAT's own space (RFC 6598): the router is behind another NAT.
        case shared
        /// 0.0.0.0: the router has no address to give.
        case unspecified
    }

    public var scope: Scope {
        func within(_ network: IPv4Address, _ prefix: UInt32) -> Bool {
            let mask: UInt32 = prefix == 0 ? 0 : ~0 << (32 - prefix)
            return value & mask == network.value & mask
        }
        if value == 0 { return .unspecified }
        if within(IPv4Address(100, 64, 0, 0), 10) { return .shared }
        let notRoutable: [(IPv4Address, UInt32)] = [
            (IPv4Address(0, 0, 0, 0), 8), (IPv4Address(10, 0, 0, 0), 8), (IPv4Address(127, 0, 0, 0), 8),
            (IPv4Address(169, 254, 0, 0), 16), (IPv4Address(172, 16, 0, 0), 12), (IPv4Address(192, 168, 0, 0), 16),
            (IPv4Address(224, 0, 0, 0), 4), (IPv4Address(240, 0, 0, 0), 4),
        ]
        return notRoutable.contains { within($0.0, $0.1) } ? .private : .public
    }
}
