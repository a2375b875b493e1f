import ConfCore
import ConfWire

/// A line for the person that no event carries: what the engine noticed, ignored or is trying.
/// Each is a case, so that tests and scripts match what happened, not its words; `text` is the
/// line (the driver escapes it before it reaches a terminal: names and reasons come from peers).
public enum CallNote: Equatable, Sendable {
    /// A peer's signal that did not parse; `reason` says why.
    case ignoredSignal(from: ParticipantID, reason: String)
    /// A set-up tried twice without a path: the next tries TURN relay candidates alone.
    case tryingRelayOnly(Participant)
    /// A peer sent more ICE candidates for one link than conf takes.
    case tooManyCandidates(from: ParticipantID, name: String, limit: Int)
    /// The small video encoding was asked for and could not start.
    case smallVideoUnavailable
    /// A link moved to the small video encoding, or back to the full one.
    case linkEncoding(Participant, VideoEncoding)
    /// The peer's revealed short-authentication secret does not match its commitment.
    case secretDoesNotMatch(Participant)
    /// The peer never revealed its short-authentication secret.
    case secretWithheld(Participant)
    /// A failing link was set up again as often as conf does (`CallEngine.maxRestarts`).
    case gaveUp(Participant, attempts: Int)
    /// A set-up made no progress for `after`: it is made again with fresh agents. `peerSide`:
    /// our checks were answered but the peer's side has no working pair.
    case setupStalled(Participant, after: Duration, peerSide: Bool)
    /// The peer closed the chat channel.
    case chatClosed(Participant)
    /// A chat message waits for links still coming up.
    case chatWaitsForLinks
    /// A chat message waits for the first peer who connects.
    case chatWaitsForFirstPeer
    /// The peer's audio comes in packets conf does not play: `milliseconds` long, or nil for
    /// malformed Opus.
    case unplayableAudio(Participant, milliseconds: Double?)
    /// Our downlink is shared by `peers` links (each is asked for an even share), or no longer (nil).
    case downlinkShared(peers: Int?)

    public var text: String {
        switch self {
        case .ignoredSignal(let id, let reason):
            "conf: ignored a bad signal from \(id): \(reason)"
        case .tryingRelayOnly(let peer):
            "conf: still no path to \(peer.name) (\(peer.id)): trying through the TURN relay alone, if there is one"
        case .tooManyCandidates(let id, let name, let limit):
            "conf: \(name) (\(id)) sent more than \(limit) ICE candidates for one link; the rest are ignored"
        case .smallVideoUnavailable:
            "conf: the small video encoding could not start: links too weak for the full one pause instead"
        case .linkEncoding(let peer, let encoding):
            "conf: \(peer.name)'s link carries \(encoding == .small ? "only the small video (half the size)" : "the full video again")"
        case .secretDoesNotMatch(let peer):
            "conf: \(peer.name) (\(peer.id)) revealed a secret that does not match its commitment: no words to check on this link"
        case .secretWithheld(let peer):
            "conf: \(peer.name) (\(peer.id)) did not reveal its secret: no words to check on this link"
        case .gaveUp(let peer, let attempts):
            "conf: giving up on \(peer.name) (\(peer.id)) after \(attempts) new attempts; the call goes on with the others"
        case .setupStalled(let peer, let after, let peerSide):
            "conf: no progress connecting to \(peer.name) (\(peer.id)) in \(after.secondsForPeople) s ("
                + (peerSide ? "the peer's side of ICE has no working pair" : "no ICE check of ours was answered")
                + "): setting the link up again"
        case .chatClosed(let peer):
            "\(peer.name) (\(peer.id)) closed the chat channel: your messages no longer reach them"
        case .chatWaitsForLinks:
            "Nobody is connected yet: the message goes to each peer as its link comes up."
        case .chatWaitsForFirstPeer:
            "Nobody is connected yet: the message goes to the first peer who connects."
        case .unplayableAudio(let peer, let milliseconds):
            "conf: \(peer.name) (\(peer.id)) sends audio in "
                + (milliseconds.map { "packets of \($0 == $0.rounded() ? "\(Int($0))" : "\($0)") ms" } ?? "malformed Opus packets")
                + "; conf plays 20 to 120 ms packets only, so that audio is dropped"
        case .downlinkShared(let peers?):
            "conf: \(peers) peers' packets queue together on their way here (this downlink): each is asked to keep to an even share"
        case .downlinkShared(nil):
            "conf: this downlink no longer queues: the peers' shares are lifted"
        }
    }
}
