/// NAT-PMP (RFC 6886): version 0, over UDP to the gateway's port 5351, which PCP replaced and
/// many routers still speak alone. Responses set the top bit of the request's opcode.
public enum NATPMP {
    public static let version: UInt8 = 0
    static let responseBit: UInt8 = 128
    static let headerLength = 8
    static let publicAddressResponseLength = 12
    static let mappingResponseLength = 16
}

/// A NAT-PMP request.
///
///     public address (section 3.2):   | Vers = 0 | OP = 0 |
///
///     mapping (section 3.3):          | Vers = 0 | OP = x |        Reserved         |
///         x = 1 UDP, 2 TCP            |      Internal Port  | Suggested External Port |
///                                     |       Requested Port Mapping Lifetime (s)     |
///
/// A mapping request with a lifetime of 0 (and a suggested external port of 0) deletes the
/// mapping (section 3.4).
public enum NATPMPRequest: Equatable, Sendable {
    case publicAddress
    case mapping(MappingTransport, internalPort: UInt16, suggestedExternalPort: UInt16, lifetime: UInt32)

    public var bytes: [UInt8] {
        switch self {
        case .publicAddress:
            return [NATPMP.version, 0]
        case .mapping(let transport, let internalPort, let suggestedExternalPort, let lifetime):
            var out: [UInt8] = [NATPMP.version, transport.natPMPOpcode, 0, 0]
            out.appendBigEndian(internalPort)
            out.appendBigEndian(suggestedExternalPort)
            out.appendBigEndian(lifetime)
            return out
        }
    }

    /// A request as a gateway reads it (the tests' fake router, the fuzz target).
    public init(bytes: [UInt8]) throws(PortMappingParseError) {
        guard bytes.count >= 2 else { throw .tooShort(count: bytes.count, needed: 2) }
        guard bytes[0] == NATPMP.version else { throw .wrongVersion(bytes[0]) }
        if bytes[1] == 0 {
            self = .publicAddress
            return
        }
        guard let transport = MappingTransport(natPMPOpcode: bytes[1]) else {
            throw bytes[1] >= NATPMP.responseBit ? .notAResponse : .unexpectedOpcode(bytes[1])
        }
        guard bytes.count >= 12 else { throw .tooShort(count: bytes.count, needed: 12) }
        self = .mapping(transport, internalPort: bytes.bigEndianUInt16(at: 4), suggestedExternalPort: bytes.bigEndianUInt16(at: 6),
                        lifetime: bytes.bigEndianUInt32(at: 8))
    }
}

/// A NAT-PMP response.
///
///     every response:   | Vers = 0 | OP = 128 + x |     Result Code (16 bits)     |
///                       |          Seconds Since Start of Epoch (32 bits)         |
///     public address (x = 0, section 3.2):
///                       |              External IPv4 Address (32 bits)            |
///     mapping (x = 1 UDP, 2 TCP, section 3.3):
///                       |       Internal Port      |     Mapped External Port     |
///                       |         Port Mapping Lifetime in Seconds (32 bits)      |
///
/// Section 3.5: a gateway that does not speak the request's version (a PCP request, version 2)
/// answers with the 8-byte header alone, result 1; one that does not know the opcode sends the
/// request back with the response bit set and result 5. Both parse as `.headerOnly`. Trailing
/// bytes after the fields are ignored.
public struct NATPMPResponse: Equatable, Sendable {
    public var result: NATPMPResultCode
    /// Seconds since the gateway's mappings were last lost (section 3.6).
    public var epochTime: UInt32
    public var body: Body

    public enum Body: Equatable, Sendable {
        case publicAddress(IPv4Address)
        case mapping(MappingTransport, internalPort: UInt16, externalPort: UInt16, lifetime: UInt32)
        /// An error response without its opcode's fields; the opcode is the request's (without the
        /// response bit).
        case headerOnly(requestOpcode: UInt8)
    }

    public init(result: NATPMPResultCode, epochTime: UInt32, body: Body) {
        self.result = result
        self.epochTime = epochTime
        self.body = body
    }

    public init(bytes: [UInt8]) throws(PortMappingParseError) {
        guard bytes.count >= NATPMP.headerLength else { throw .tooShort(count: bytes.count, needed: NATPMP.headerLength) }
        guard bytes[0] == NATPMP.version else { throw .wrongVersion(bytes[0]) }
        guard bytes[1] >= NATPMP.responseBit else { throw .notAResponse }
        let requestOpcode = bytes[1] - NATPMP.responseBit
        result = NATPMPResultCode(code: bytes.bigEndianUInt16(at: 2))
        epochTime = bytes.bigEndianUInt32(at: 4)
        let needed = requestOpcode == 0 ? NATPMP.publicAddressResponseLength : NATPMP.mappingResponseLength
        if result != .success, bytes.count < needed || (requestOpcode != 0 && MappingTransport(natPMPOpcode: requestOpcode) == nil) {
            body = .headerOnly(requestOpcode: requestOpcode)
        } else if requestOpcode == 0 {
            guard bytes.count >= needed else { throw .tooShort(count: bytes.count, needed: needed) }
            body = .publicAddress(IPv4Address(bytes.bigEndianUInt32(at: 8)))
        } else if let transport = MappingTransport(natPMPOpcode: requestOpcode) {
            guard bytes.count >= needed else { throw .tooShort(count: bytes.count, needed: needed) }
            body = .mapping(transport, internalPort: bytes.bigEndianUInt16(at: 8), externalPort: bytes.bigEndianUInt16(at: 10),
                            lifetime: bytes.bigEndianUInt32(at: 12))
        } else {
            throw .unexpectedOpcode(bytes[1])
        }
    }

    /// The response as a gateway sends it (the tests' fake router).
    public var bytes: [UInt8] {
        var out: [UInt8] = [NATPMP.version, 0, 0, 0]
        out.appendBigEndian(epochTime)
        switch body {
        case .publicAddress(let address):
            out[1] = NATPMP.responseBit
            out.appendBigEndian(address.value)
        case .mapping(let transport, let internalPort, let externalPort, let lifetime):
            out[1] = NATPMP.responseBit + transport.natPMPOpcode
            out.appendBigEndian(internalPort)
            out.appendBigEndian(externalPort)
            out.appendBigEndian(lifetime)
        case .headerOnly(let requestOpcode):
            out[1] = NATPMP.responseBit | requestOpcode
        }
        out[2] = UInt8(result.code >> 8)
        out[3] = UInt8(truncatingIfNeeded: result.code)
        return out
    }
}
