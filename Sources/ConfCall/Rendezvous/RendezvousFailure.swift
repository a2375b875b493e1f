import ConfCore
import ConfWire

/// Why a participant's session with the rendezvous ended in failure. The app turns each into an
/// exit code, an `error` event code and words (ConfDriver's `CommandFailure(_:rendezvous:room:)`).
public enum RendezvousFailure: Error, Equatable, Sendable {
    /// The WebSocket could not be opened at the start.
    case cannotConnect(RendezvousClientError)
    /// The rendezvous said no to the join: wrong pin, room full, no such room, rate limited, not
    /// admitted after knocking, ...; `message` is its own words.
    case joinRefused(ErrorCode, message: String)
    /// The rendezvous ended the room before we were in, for a reason other than its host leaving.
    case shutDown
    /// The rendezvous closed the connection before we were in (after refusing us, or for a reason of its own).
    case closedBeforeJoining(reason: String)
    /// The connection broke before we were in.
    case lostBeforeJoining(reason: String)
    /// Lost in the room, with no resume token to take the seat back and no peer connected.
    case lostAlone(CallEvent.RendezvousLoss)
    /// The seat could not be taken back, and no peer is connected.
    case closedAlone(CallEvent.RendezvousClosing)
    /// Away, with no peer connected for `limit`.
    case awayAlone(limit: Duration)
}
