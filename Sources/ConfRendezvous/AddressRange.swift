/// A block of IP addresses in CIDR form ("10.0.0.0/8", "2001:db8::/32", or one address), for
/// what the operator opens to some networks only (`/v1/metrics`: `--metrics-from`). Pure.
public struct AddressRange: Sendable, Equatable, CustomStringConvertible {
    let bytes: [UInt8]
    let prefix: Int

    /// Loopback: what the machine itself may always read.
    public static let loopback = [AddressRange("127.0.0.0/8")!, AddressRange("::1/128")!]

    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = Self.parse(String(parts[0])) else { return nil }
        let width = address.count * 8
        if parts.count == 2 {
            guard let prefix = Int(parts[1]), (0...width).contains(prefix), parts[1].allSatisfy(\.isNumber) else { return nil }
            self.prefix = prefix
        } else {
            prefix = width
        }
        bytes = address
    }

    public var description: String {
        (bytes.count == 4 ? bytes.map(String.init).joined(separator: ".")
            : stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }.joined(separator: ":"))
            + "/\(prefix)"
    }

    /// Whether `address` (text, as the I/O layer reports it) lies in the block. An IPv4-mapped
    /// IPv6 address counts as its IPv4 address.
    public func contains(_ address: String) -> Bool {
        guard let other = Self.parse(address), other.count == bytes.count else { return false }
        var remaining = prefix
        for index in 0..<bytes.count where remaining > 0 {
            let bits = min(8, remaining)
            let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
            if bytes[index] & mask != other[index] & mask { return false }
            remaining -= bits
        }
        return true
    }

    static func parse(_ text: String) -> [UInt8]? {
        if let v4 = ClientAddress.ipv4(text) { return v4 }
        guard let v6 = ClientAddress.ipv6(text) else { return nil }
        if v6[0..<10].allSatisfy({ $0 == 0 }) && v6[10] == 0xFF && v6[11] == 0xFF { return Array(v6[12...]) }
        return v6
    }
}
