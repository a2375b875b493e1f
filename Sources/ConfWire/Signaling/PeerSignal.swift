import ConfCore

/// What two participants say to each other through the rendezvous's `signal` messages to set up
/// their peer connection (docs/PROTOCOL.md, "Peer signals"): JSEP offer/answer and trickled ICE
/// candidates (RFC 8829, RFC 8838).
public enum PeerSignal: Equatable, Sendable {
    case offer(String)
    case answer(String)
    /// One candidate for the media section `mid` (with BUNDLE, the first one).
    case candidate(mid: String, IceCandidate)
    /// The sender has gathered all its candidates.
    case endOfCandidates
    /// conf to conf: the sender's network changed; the side that offered the link sets it up
    /// again at once (a new offer with new ICE credentials) instead of waiting to notice silence.
    case restart

    public var json: JSONValue {
        switch self {
        case .offer(let sdp): .object(["type": "offer", "sdp": .string(sdp)])
        case .answer(let sdp): .object(["type": "answer", "sdp": .string(sdp)])
        case .candidate(let mid, let candidate):
            .object(["type": "candidate", "mid": .string(mid), "candidate": .string(candidate.description)])
        case .endOfCandidates: .object(["type": "end-of-candidates"])
        case .restart: .object(["type": "restart"])
        }
    }

    public init(json: JSONValue) throws(ProtocolError) {
        let fields = try FieldReader(json)
        switch try fields.string("type") {
        case "offer": self = .offer(try fields.string("sdp"))
        case "answer": self = .answer(try fields.string("sdp"))
        case "candidate":
            let line = try fields.string("candidate")
            // An empty candidate is how browsers say "end of candidates" (RFC 8840 section 4.4).
            if line.isEmpty {
                self = .endOfCandidates
                return
            }
            switch IceCandidate.parse(line) {
            case .success(let candidate): self = .candidate(mid: try fields.optionalString("mid") ?? "", candidate)
            case .failure(let error): throw .invalidValue(field: "candidate", reason: error.description)
            }
        case "end-of-candidates": self = .endOfCandidates
        case "restart": self = .restart
        case let other: throw .unknownType(other)
        }
    }
}
