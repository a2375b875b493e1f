/// An IP address and port as STUN carries them (RFC 8489 section 14.1): the address's bytes in
/// network order, 4 for IPv4 or 16 for IPv6. A server is given one as the source of a request; a
/// client reads one from a response.
public struct STUNTransportAddress: Hashable, Sendable, CustomStringConvertible {
    /// The family byte of MAPPED-ADDRESS and XOR-MAPPED-ADDRESS.
    public enum Family: UInt8, Sendable {
        case ipv4 = 0x01, ipv6 = 0x02
    }

    public let address: [UInt8]
    public var port: UInt16

    /// Nil unless `address` is 4 or 16 bytes.
    public init?(address: [UInt8], port: UInt16) {
        guard address.count == 4 || address.count == 16 else { return nil }
        self.address = address
        self.port = port
    }

    public var family: Family { address.count == 4 ? .ipv4 : .ipv6 }

    /// "192.0.2.1", or IPv6 as RFC 5952 section 4 writes it: lower-case hex without leading
    /// zeros, the longest run of two or more zero groups (the first if tied) as "::".
    public var host: String {
        guard family == .ipv6 else { return address.map(String.init).joined(separator: ".") }
        let groups = (0..<8).map { address.stunUInt16(at: $0 * 2) }
        var best = 0..<0
        var runStart: Int?
        for index in 0...8 {
            if index < 8 && groups[index] == 0 {
                runStart = runStart ?? index
            } else if let start = runStart {
                if index - start > best.count { best = start..<index }
                runStart = nil
            }
        }
        let hex = groups.map { String($0, radix: 16) }
        guard best.count >= 2 else { return hex.joined(separator: ":") }
        return hex[..<best.lowerBound].joined(separator: ":") + "::" + hex[best.upperBound...].joined(separator: ":")
    }

    public var hostPort: HostPort { HostPort(host: host, port: port) }

    /// "192.0.2.1:32853" or "[2001:db8::1]:32853".
    public var description: String { hostPort.description }
}
