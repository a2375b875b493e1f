/// Why a session description (or a candidate) was refused; messages name the line.
public enum SDPError: Error, Equatable, Sendable, CustomStringConvertible {
    case tooLarge(limit: Int)
    case malformed(line: Int, reason: String)
    case missing(String)
    case unsupported(String)
    case invalidCandidate(String)

    public var description: String {
        switch self {
        case .tooLarge(let limit): "the SDP is larger than \(limit) bytes"
        case .malformed(let line, let reason): "SDP line \(line): \(reason)"
        case .missing(let what): "the SDP has no \(what)"
        case .unsupported(let what): "the SDP asks for something conf does not support: \(what)"
        case .invalidCandidate(let reason): "invalid ICE candidate: \(reason)"
        }
    }
}
