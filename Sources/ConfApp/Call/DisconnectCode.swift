/// Why a peer link ended, as a stable code for scripts (`peer-disconnected`'s `code`); the event's
/// `reason` says it in words.
enum DisconnectCode: String {
    /// The peer left the room or closed the link.
    case left
    /// The peer set the link up again; a new one follows.
    case restarting
    /// ICE found no working candidate pair (often: UDP blocked, or NATs that need TURN).
    case noPath = "no-path"
    /// A working path stopped working (ICE consent lost).
    case pathFailed = "path-failed"
    /// The link did not come up within --connect-timeout.
    case connectTimeout = "connect-timeout"
    /// Nothing authenticated was heard from the peer for too long.
    case silence
    /// The offer or answer could not be used.
    case negotiationFailed = "negotiation-failed"
    /// DTLS or SRTP could not be set up (wrong fingerprint, handshake failure).
    case dtlsFailed = "dtls-failed"
}
