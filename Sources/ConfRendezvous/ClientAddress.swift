/// Who a limit counts: a client's address reduced to what one party plausibly controls.
///
/// An IPv4 address is one client; an IPv6 client usually holds a whole /64 (one LAN, SLAAC
/// privacy addresses), so IPv6 clients are keyed by their /64. IPv4-mapped IPv6 addresses
/// (`::ffff:192.0.2.1`, what a dual-stack socket reports) count as the IPv4 address.
/// `network` is the wider block for fair sharing: an IPv4 /24, an IPv6 /48.
public struct ClientAddress: Hashable, Sendable, CustomStringConvertible {
    /// The key for per-client limits: "192.0.2.7" or "2001:db8:1:2::/64".
    public let client: String
    /// The key for per-network limits: "192.0.2.0/24" or "2001:db8:1::/48".
    public let network: String

    /// Parses the textual address the I/O layer reports. Anything unparsable (a Unix socket, a
    /// hostname) is its own client and its own network.
    public init(_ text: String) {
        if let v4 = Self.ipv4(text) {
            client = Self.format(v4)
            network = Self.format([v4[0], v4[1], v4[2], 0]) + "/24"
        } else if let v6 = Self.ipv6(text) {
            if v6[0..<10].allSatisfy({ $0 == 0 }) && v6[10] == 0xff && v6[11] == 0xff {
                let v4 = Array(v6[12..<16])
                client = Self.format(v4)
                network = Self.format([v4[0], v4[1], v4[2], 0]) + "/24"
            } else {
                client = Self.format(v6, groups: 4) + "::/64"
                network = Self.format(v6, groups: 3) + "::/48"
            }
        } else {
            client = text
            network = text
        }
    }

    public var description: String { client }

    static func ipv4(_ text: String) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard (1...3).contains(part.count), part.allSatisfy({ $0.isASCII && $0.isNumber }), let value = UInt8(part) else { return nil }
            bytes.append(value)
        }
        return bytes
    }

    /// RFC 4291 section 2.2 text forms: eight groups, one `::`, an IPv4 tail; a `%zone` is ignored.
    static func ipv6(_ text: String) -> [UInt8]? {
        let address = text.split(separator: "%", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? text
        guard address.contains(":"), address.count <= 45 else { return nil }
        let halves = address.split(separator: "::", omittingEmptySubsequences: false).map(String.init)
        guard halves.count <= 2 else { return nil }
        func groups(_ part: String) -> [UInt16]? {
            if part.isEmpty { return [] }
            var result: [UInt16] = []
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            for (index, piece) in pieces.enumerated() {
                if index == pieces.count - 1, piece.contains("."), let v4 = ipv4(String(piece)) {
                    result.append(UInt16(v4[0]) << 8 | UInt16(v4[1]))
                    result.append(UInt16(v4[2]) << 8 | UInt16(v4[3]))
                } else {
                    guard (1...4).contains(piece.count), let value = UInt16(piece, radix: 16) else { return nil }
                    result.append(value)
                }
            }
            return result
        }
        guard let head = groups(halves[0]) else { return nil }
        var all = head
        if halves.count == 2 {
            guard let tail = groups(halves[1]), head.count + tail.count <= 7 else { return nil }
            all += Array(repeating: 0, count: 8 - head.count - tail.count) + tail
        }
        guard all.count == 8 else { return nil }
        return all.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xff)] }
    }

    private static func format(_ v4: [UInt8]) -> String { v4.map(String.init).joined(separator: ".") }

    /// The first `groups` 16-bit groups in lowercase hex, without leading zeros.
    private static func format(_ v6: [UInt8], groups: Int) -> String {
        (0..<groups).map { String(UInt16(v6[2 * $0]) << 8 | UInt16(v6[2 * $0 + 1]), radix: 16) }.joined(separator: ":")
    }
}
