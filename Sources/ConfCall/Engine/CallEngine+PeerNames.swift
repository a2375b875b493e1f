import ConfCore
import ConfWire

/// Finding a peer by what a command calls it (`mute bob`, `camera p2`).
extension CallEngine {
    /// Who a command names: an id ("p2"), else a name as written, else a name in any case.
    public enum PeerMatch: Equatable, Sendable {
        case one(ParticipantID)
        case none
        /// Names are not unique: the ids of those who bear this one, in order.
        case several([ParticipantID])
    }

    public func findPeer(_ text: String) -> PeerMatch {
        if roster[ParticipantID(text)] != nil { return .one(ParticipantID(text)) }
        let exact = roster.values.filter { $0.name == text }
        let matches = exact.isEmpty ? roster.values.filter { $0.name.lowercased() == text.lowercased() } : exact
        let ids = matches.map(\.id).sorted()
        switch ids.count {
        case 0: return .none
        case 1: return .one(ids[0])
        default: return .several(ids)
        }
    }
}
