import ConfCore

/// PCP's MAP request and the responses conf reads (RFC 6887): version 2, over UDP to the
/// gateway's port 5351, at most 1100 bytes, a multiple of 4 (section 7).
public enum PCP {
    public static let version: UInt8 = 2
    public static let serverPort: UInt16 = 5351
    public static let maximumLength = 1100
    /// The opcodes conf uses (section 19.2): ANNOUNCE only as the server's restart notice.
    public static let announceOpcode: UInt8 = 0
    public static let mapOpcode: UInt8 = 1
    static let headerLength = 24
    static let mapLength = headerLength + 36
}

/// The 96-bit random value that ties a MAP request to its responses and to its later renewals
/// and deletion (RFC 6887 section 11.1): chosen once per mapping, kept for its lifetime.
public struct PCPNonce: Hashable, Sendable, CustomStringConvertible {
    public let bytes: [UInt8]

    /// Nil unless exactly 12 bytes.
    public init?(_ bytes: [UInt8]) {
        guard bytes.count == 12 else { return nil }
        self.bytes = bytes
    }

    public init<R: RandomNumberGenerator>(using random: inout R) {
        bytes = (0..<12).map { _ in UInt8.random(in: .min ... .max, using: &random) }
    }

    public var description: String { Hex.string(bytes) }
}

/// A MAP request (RFC 6887 sections 7.1 and 11.1). A lifetime of 0 deletes the mapping
/// (section 15); a renewal is the same request again with the same nonce (section 11.2.1).
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     |  Version = 2  |R|   Opcode    |         Reserved              |
///     |                 Requested Lifetime (32 bits)                  |
///     |            PCP Client's IP Address (128 bits)                 |   4 words
///     |                 Mapping Nonce (96 bits)                       |   3 words
///     |   Protocol    |          Reserved (24 bits)                   |
///     |        Internal Port          |    Suggested External Port    |
///     |           Suggested External IP Address (128 bits)            |   4 words
public struct PCPMapRequest: Equatable, Sendable {
    /// Seconds; 0 deletes.
    public var lifetime: UInt32
    /// The client's address as the server sees it (a mismatch is ADDRESS_MISMATCH).
    public var clientAddress: IPv4Address
    public var nonce: PCPNonce
    public var transport: MappingTransport
    public var internalPort: UInt16
    /// 0 for "any".
    public var suggestedExternalPort: UInt16
    /// `.unspecified` (sent as ::ffff:0.0.0.0) for "any".
    public var suggestedExternalAddress: IPv4Address

    public init(lifetime: UInt32, clientAddress: IPv4Address, nonce: PCPNonce, transport: MappingTransport, internalPort: UInt16,
                suggestedExternalPort: UInt16, suggestedExternalAddress: IPv4Address = .unspecified) {
        self.lifetime = lifetime
        self.clientAddress = clientAddress
        self.nonce = nonce
        self.transport = transport
        self.internalPort = internalPort
        self.suggestedExternalPort = suggestedExternalPort
        self.suggestedExternalAddress = suggestedExternalAddress
    }

    public var bytes: [UInt8] {
        var out: [UInt8] = [PCP.version, PCP.mapOpcode, 0, 0]
        out.appendBigEndian(lifetime)
        out += clientAddress.ipv4MappedIPv6
        out += nonce.bytes
        out += [transport.protocolNumber, 0, 0, 0]
        out.appendBigEndian(internalPort)
        out.appendBigEndian(suggestedExternalPort)
        out += suggestedExternalAddress.ipv4MappedIPv6
        return out
    }

    /// A request as a server reads it (the tests' fake router, the fuzz target). Options after the
    /// MAP fields are skipped.
    public init(bytes: [UInt8]) throws(PortMappingParseError) {
        try PCP.checkFraming(bytes, needed: PCP.mapLength)
        guard bytes[0] == PCP.version else { throw .wrongVersion(bytes[0]) }
        guard bytes[1] & 0x80 == 0 else { throw .notAResponse }
        guard bytes[1] == PCP.mapOpcode else { throw .unexpectedOpcode(bytes[1]) }
        guard let client = IPv4Address(ipv4MappedIPv6: bytes[8..<24]) else { throw .notIPv4 }
        guard let transport = MappingTransport(protocolNumber: bytes[36]) else { throw .unknownTransport(bytes[36]) }
        self.init(lifetime: bytes.bigEndianUInt32(at: 4), clientAddress: client, nonce: PCPNonce(Array(bytes[24..<36]))!, transport: transport,
                  internalPort: bytes.bigEndianUInt16(at: 40), suggestedExternalPort: bytes.bigEndianUInt16(at: 42),
                  suggestedExternalAddress: IPv4Address(ipv4MappedIPv6: bytes[44..<60]) ?? .unspecified)
    }
}

/// A PCP response (RFC 6887 section 7.2) to MAP (section 11.1), or an ANNOUNCE.
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     |  Version = 2  |R|   Opcode    |   Reserved    |  Result Code  |
///     |                      Lifetime (32 bits)                       |
///     |                     Epoch Time (32 bits)                      |
///     |                      Reserved (96 bits)                       |   3 words
///     :             MAP: nonce, protocol, internal port,              :
///     :             assigned external port and address                :   9 words
///
/// An error response carries the request's MAP fields back (section 7.2), but a server that could
/// not read the request may send the header alone: `map` is nil then, which only an error may be.
public struct PCPResponse: Equatable, Sendable {
    public var opcode: UInt8
    public var result: PCPResultCode
    /// On success the seconds the mapping lasts; on error how long the error is expected to last.
    public var lifetime: UInt32
    /// Seconds since the server's state began (section 8.5): a jump back means it lost its mappings.
    public var epochTime: UInt32
    public var map: Map?

    public struct Map: Equatable, Sendable {
        public var nonce: PCPNonce
        public var transport: MappingTransport
        public var internalPort: UInt16
        public var externalPort: UInt16
        /// Nil when the server sent an address that is not IPv4-mapped (IPv6).
        public var externalAddress: IPv4Address?

        public init(nonce: PCPNonce, transport: MappingTransport, internalPort: UInt16, externalPort: UInt16, externalAddress: IPv4Address?) {
            self.nonce = nonce
            self.transport = transport
            self.internalPort = internalPort
            self.externalPort = externalPort
            self.externalAddress = externalAddress
        }
    }

    public init(opcode: UInt8, result: PCPResultCode, lifetime: UInt32, epochTime: UInt32, map: Map?) {
        self.opcode = opcode
        self.result = result
        self.lifetime = lifetime
        self.epochTime = epochTime
        self.map = map
    }

    public init(bytes: [UInt8]) throws(PortMappingParseError) {
        try PCP.checkFraming(bytes, needed: PCP.headerLength)
        guard bytes[0] == PCP.version else { throw .wrongVersion(bytes[0]) }
        guard bytes[1] & 0x80 != 0 else { throw .notAResponse }
        opcode = bytes[1] & 0x7F
        result = PCPResultCode(code: bytes[3])
        lifetime = bytes.bigEndianUInt32(at: 4)
        epochTime = bytes.bigEndianUInt32(at: 8)
        switch opcode {
        case PCP.announceOpcode: map = nil
        case PCP.mapOpcode where bytes.count < PCP.mapLength:
            guard result != .success else { throw .tooShort(count: bytes.count, needed: PCP.mapLength) }
            map = nil
        case PCP.mapOpcode:
            guard let transport = MappingTransport(protocolNumber: bytes[36]) else { throw .unknownTransport(bytes[36]) }
            map = Map(nonce: PCPNonce(Array(bytes[24..<36]))!, transport: transport, internalPort: bytes.bigEndianUInt16(at: 40),
                      externalPort: bytes.bigEndianUInt16(at: 42), externalAddress: IPv4Address(ipv4MappedIPv6: bytes[44..<60]))
        default: throw .unexpectedOpcode(opcode)
        }
    }

    /// The response as a server sends it (the tests' fake router).
    public var bytes: [UInt8] {
        var out: [UInt8] = [PCP.version, 0x80 | opcode, 0, result.code]
        out.appendBigEndian(lifetime)
        out.appendBigEndian(epochTime)
        out += [UInt8](repeating: 0, count: 12)
        if let map {
            out += map.nonce.bytes
            out += [map.transport.protocolNumber, 0, 0, 0]
            out.appendBigEndian(map.internalPort)
            out.appendBigEndian(map.externalPort)
            out += map.externalAddress?.ipv4MappedIPv6 ?? [UInt8](repeating: 0, count: 16)
        }
        return out
    }
}

extension PCP {
    /// Section 7: at least `needed` bytes, at most 1100, a multiple of 4.
    static func checkFraming(_ bytes: [UInt8], needed: Int) throws(PortMappingParseError) {
        guard bytes.count >= needed else { throw .tooShort(count: bytes.count, needed: needed) }
        guard bytes.count <= maximumLength, bytes.count % 4 == 0 else { throw .badLength(bytes.count) }
    }
}
