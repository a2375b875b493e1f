/// A PCP response's result code (RFC 6887 section 7.4), with its RFC name and meaning.
public enum PCPResultCode: Hashable, Sendable, CustomStringConvertible {
    case success
    case unsupportedVersion
    case notAuthorized
    case malformedRequest
    case unsupportedOpcode
    case unsupportedOption
    case malformedOption
    case networkFailure
    case noResources
    case unsupportedProtocol
    case userExceededQuota
    case cannotProvideExternal
    case addressMismatch
    case excessiveRemotePeers
    /// A code RFC 6887 does not assign.
    case unassigned(UInt8)

    private static let known: [PCPResultCode] = [
        .success, .unsupportedVersion, .notAuthorized, .malformedRequest, .unsupportedOpcode, .unsupportedOption, .malformedOption,
        .networkFailure, .noResources, .unsupportedProtocol, .userExceededQuota, .cannotProvideExternal, .addressMismatch,
        .excessiveRemotePeers,
    ]

    public init(code: UInt8) {
        self = Int(code) < Self.known.count ? Self.known[Int(code)] : .unassigned(code)
    }

    public var code: UInt8 {
        if case .unassigned(let code) = self { return code }
        return UInt8(Self.known.firstIndex(of: self)!)
    }

    /// The name RFC 6887 gives it, "NO_RESOURCES".
    public var name: String {
        switch self {
        case .success: "SUCCESS"
        case .unsupportedVersion: "UNSUPP_VERSION"
        case .notAuthorized: "NOT_AUTHORIZED"
        case .malformedRequest: "MALFORMED_REQUEST"
        case .unsupportedOpcode: "UNSUPP_OPCODE"
        case .unsupportedOption: "UNSUPP_OPTION"
        case .malformedOption: "MALFORMED_OPTION"
        case .networkFailure: "NETWORK_FAILURE"
        case .noResources: "NO_RESOURCES"
        case .unsupportedProtocol: "UNSUPP_PROTOCOL"
        case .userExceededQuota: "USER_EX_QUOTA"
        case .cannotProvideExternal: "CANNOT_PROVIDE_EXTERNAL"
        case .addressMismatch: "ADDRESS_MISMATCH"
        case .excessiveRemotePeers: "EXCESSIVE_REMOTE_PEERS"
        case .unassigned(let code): "result \(code)"
        }
    }

    /// What it means, in words for a person.
    public var meaning: String {
        switch self {
        case .success: "success"
        case .unsupportedVersion: "the router does not speak this version of PCP"
        case .notAuthorized: "the router does not allow this client to map ports"
        case .malformedRequest: "the router could not read the request"
        case .unsupportedOpcode: "the router does not support this request"
        case .unsupportedOption: "the router does not support a mandatory option"
        case .malformedOption: "the router could not read an option"
        case .networkFailure: "the router has no working external network"
        case .noResources: "the router is out of mappings for now"
        case .unsupportedProtocol: "the router does not map this protocol"
        case .userExceededQuota: "this client has used up its mappings on the router"
        case .cannotProvideExternal: "the router cannot give the external port or address asked for"
        case .addressMismatch: "the router sees this client at another address (a NAT between us)"
        case .excessiveRemotePeers: "the router cannot filter that many remote peers"
        case .unassigned: "an unknown PCP error"
        }
    }

    public var description: String { "\(name) (\(code)): \(meaning)" }
}
