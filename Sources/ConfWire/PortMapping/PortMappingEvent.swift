/// Which port-mapping protocol the gateway spoke.
public enum PortMappingProtocol: Hashable, Sendable, CustomStringConvertible {
    /// RFC 6887.
    case pcp
    /// RFC 6886.
    case natPMP

    public var description: String { self == .pcp ? "PCP" : "NAT-PMP" }
}

/// A gateway's result code, from whichever protocol it spoke.
public enum PortMappingResult: Hashable, Sendable, CustomStringConvertible {
    case pcp(PCPResultCode)
    case natPMP(NATPMPResultCode)

    public var mappingProtocol: PortMappingProtocol {
        if case .pcp = self { return .pcp }
        return .natPMP
    }

    public var description: String {
        switch self {
        case .pcp(let code): "PCP \(code)"
        case .natPMP(let code): code.description
        }
    }
}

/// The ports the gateway forwards to us.
public struct PortMappingGrant: Equatable, Sendable {
    public var mappingProtocol: PortMappingProtocol
    /// The router's external address: from the first MAP response with PCP, from the public
    /// address request with NAT-PMP.
    public var externalAddress: IPv4Address
    /// One per wanted mapping, in the configuration's order.
    public var ports: [MappedPort]
    /// The shortest lifetime granted, in seconds; the session renews each mapping at half its own.
    public var lifetime: UInt32

    public struct MappedPort: Equatable, Sendable {
        public var wanted: WantedMapping
        /// The port the router gave, which may not be the one asked for.
        public var externalPort: UInt16

        public init(wanted: WantedMapping, externalPort: UInt16) {
            self.wanted = wanted
            self.externalPort = externalPort
        }
    }

    public init(mappingProtocol: PortMappingProtocol, externalAddress: IPv4Address, ports: [MappedPort], lifetime: UInt32) {
        self.mappingProtocol = mappingProtocol
        self.externalAddress = externalAddress
        self.ports = ports
        self.lifetime = lifetime
    }
}

/// What the session found out, for its owner.
public enum PortMappingEvent: Equatable, Sendable {
    /// Every wanted mapping is in place (reported again when the external address or a port changes).
    case mapped(PortMappingGrant)
    /// The gateway said no. `mapping` is nil when the refusal was of the public address request or
    /// could not be tied to one mapping.
    case refused(PortMappingResult, mapping: WantedMapping?)
    /// The gateway itself has no public address: what a carrier-grade NAT (or a second router)
    /// looks like from inside. Either it said so (`result`: PCP NETWORK_FAILURE or
    /// CANNOT_PROVIDE_EXTERNAL, NAT-PMP 3) or the external address it gave is not public
    /// (`externalAddress` and its `scope`: shared 100.64/10, private, 0.0.0.0).
    case noPublicAddress(PortMappingProtocol, externalAddress: IPv4Address?, result: PortMappingResult?)
    /// Neither PCP nor NAT-PMP got any answer from the gateway.
    case noGatewayAnswered
    /// The gateway answered other requests but not this one (nil: the public address request)
    /// before it was given up: a mapping, a renewal (until the mapping's end) or a remap.
    case unanswered(PortMappingProtocol, mapping: WantedMapping?)
    /// After `.release`: every mapping was deleted, or the time for it ran out.
    case released
}
