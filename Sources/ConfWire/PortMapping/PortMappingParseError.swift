/// Why a datagram from the gateway is not a PCP or NAT-PMP response conf can use. The session
/// counts these and drops the datagram; they are values, never traps.
public enum PortMappingParseError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Shorter than its header or its opcode's fixed part.
    case tooShort(count: Int, needed: Int)
    /// Longer than a PCP message may be (1100 bytes, RFC 6887 section 7) or not a multiple of 4.
    case badLength(Int)
    /// The version field names another protocol (or a version conf does not speak).
    case wrongVersion(UInt8)
    /// A request, not a response: the R bit (PCP) or the 128 bit of the opcode (NAT-PMP) is clear.
    case notAResponse
    /// An opcode conf does not ask for.
    case unexpectedOpcode(UInt8)
    /// A PCP MAP response for a protocol other than TCP or UDP.
    case unknownTransport(UInt8)
    /// A PCP request from a client address that is not IPv4 (conf maps IPv4 only).
    case notIPv4

    public var description: String {
        switch self {
        case .tooShort(let count, let needed): "\(count) bytes, fewer than the \(needed) needed"
        case .badLength(let count): "a length of \(count) bytes, which no response has"
        case .wrongVersion(let version): "version \(version)"
        case .notAResponse: "a request, not a response"
        case .unexpectedOpcode(let opcode): "opcode \(opcode)"
        case .unknownTransport(let number): "protocol number \(number)"
        case .notIPv4: "a client address that is not IPv4"
        }
    }
}
