/// The transport a port mapping is for. PCP names it by its IANA protocol number (RFC 6887
/// section 11.1); NAT-PMP by opcode, 1 for UDP and 2 for TCP (RFC 6886 section 3.3).
public enum MappingTransport: Hashable, Sendable, CustomStringConvertible {
    case tcp, udp

    /// The IANA protocol number: 6 for TCP, 17 for UDP.
    public var protocolNumber: UInt8 { self == .tcp ? 6 : 17 }

    public init?(protocolNumber: UInt8) {
        switch protocolNumber {
        case 6: self = .tcp
        case 17: self = .udp
        default: return nil
        }
    }

    /// The NAT-PMP request opcode; the response's is 128 more.
    public var natPMPOpcode: UInt8 { self == .udp ? 1 : 2 }

    public init?(natPMPOpcode: UInt8) {
        switch natPMPOpcode {
        case 1: self = .udp
        case 2: self = .tcp
        default: return nil
        }
    }

    public var description: String { self == .tcp ? "TCP" : "UDP" }
}

/// One port the caller wants forwarded from the router to this machine: `internalPort` here, and
/// `externalPort` on the router's public side if it can have it (the router may give another).
public struct WantedMapping: Hashable, Sendable, CustomStringConvertible {
    public var transport: MappingTransport
    public var internalPort: UInt16
    public var externalPort: UInt16

    public init(_ transport: MappingTransport, internalPort: UInt16, externalPort: UInt16? = nil) {
        self.transport = transport
        self.internalPort = internalPort
        self.externalPort = externalPort ?? internalPort
    }

    public var description: String { "\(transport) \(internalPort)" }
}
