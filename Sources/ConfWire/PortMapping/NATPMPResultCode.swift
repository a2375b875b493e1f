/// A NAT-PMP response's result code (RFC 6886 section 3.5), with its meaning.
public enum NATPMPResultCode: Hashable, Sendable, CustomStringConvertible {
    case success
    case unsupportedVersion
    /// "Not Authorized/Refused": the box supports mapping but the user turned it off.
    case notAuthorized
    /// "Network Failure": for example the gateway has no DHCP lease on its external side yet.
    case networkFailure
    /// "Out of resources": no more mappings can be made.
    case outOfResources
    case unsupportedOpcode
    /// A code RFC 6886 does not assign.
    case unassigned(UInt16)

    private static let known: [NATPMPResultCode] = [.success, .unsupportedVersion, .notAuthorized, .networkFailure, .outOfResources, .unsupportedOpcode]

    public init(code: UInt16) {
        self = Int(code) < Self.known.count ? Self.known[Int(code)] : .unassigned(code)
    }

    public var code: UInt16 {
        if case .unassigned(let code) = self { return code }
        return UInt16(Self.known.firstIndex(of: self)!)
    }

    public var meaning: String {
        switch self {
        case .success: "success"
        case .unsupportedVersion: "unsupported version"
        case .notAuthorized: "not authorized or refused: port mapping is turned off on the router"
        case .networkFailure: "network failure: the router has no working external network"
        case .outOfResources: "out of resources: the router cannot make more mappings"
        case .unsupportedOpcode: "unsupported opcode"
        case .unassigned(let code): "unknown NAT-PMP result \(code)"
        }
    }

    public var description: String { "NAT-PMP result \(code): \(meaning)" }
}
