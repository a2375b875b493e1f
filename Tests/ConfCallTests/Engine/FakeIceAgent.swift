import ConfCall
import ConfCore
import ConfWire

/// A stand-in for a libnice agent in engine tests: one host candidate, connectivity checks as
/// datagrams through the simulated network (first byte 0: STUN's range in RFC 7983), connected
/// when a check is answered, failed when none is within `failAfter`. Checks name the agent they
/// are for by its ufrag, so a closed or replaced agent's packets are ignored, as in ICE.
final class FakeIceAgent {
    let credentials: IceCredentials
    let controlling: Bool
    let address: String
    var remoteUfrag: String?
    var remoteCandidates: [IceCandidate] = []
    var state = CallEngine.IceState.checking
    var gathered = false
    var startedChecking: Instant?
    /// Never connected, though it answers the peer's checks and passes on what else arrives:
    /// libnice once its own checks were all lost under heavy loss, after the peer's were answered
    /// (CallEngine+Stall).
    var deaf = false
    var nextCheckAt: Instant?
    static let checkInterval: Duration = .milliseconds(50)
    static let failAfter: Duration = .seconds(10)

    init(credentials: IceCredentials, controlling: Bool, address: String) {
        self.credentials = credentials
        self.controlling = controlling
        self.address = address
    }

    var candidate: IceCandidate {
        IceCandidate(foundation: "1", component: 1, transport: "udp", priority: 2_130_706_431, address: address, port: 5000, kind: .host,
                     relatedAddress: nil, relatedPort: nil, extensions: [])
    }

    var canCheck: Bool { remoteUfrag != nil && !remoteCandidates.isEmpty && state == .checking }

    /// A check or a check's answer: [0, answer?, ufrag of the agent it is for].
    func check(answer: Bool) -> [UInt8] { [0, answer ? 1 : 0] + Array((remoteUfrag ?? "").utf8) }

    /// Whether a STUN-range datagram is for this agent, and whether it is an answer.
    func accepts(_ datagram: [UInt8]) -> (forUs: Bool, answer: Bool) {
        guard datagram.count >= 2 else { return (false, false) }
        return (String(decoding: datagram[2...], as: UTF8.self) == credentials.ufrag, datagram[1] == 1)
    }
}
