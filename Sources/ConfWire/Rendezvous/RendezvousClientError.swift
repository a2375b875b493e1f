/// Why talking to the rendezvous failed, in terms a user can act on. The client (ConfIO) makes
/// these from what libsoup and GLib say; the participant's session core (ConfCall) takes them in.
public enum RendezvousClientError: Error, Equatable, Sendable {
    /// Could not connect at all (refused, no route, name not found, timed out).
    case unreachable(String)
    /// The server answered with a protocol error.
    case refused(ErrorCode, String)
    /// The server answered something that is not the protocol (wrong port? not a rendezvous?).
    case badAnswer(String)
    /// The TLS certificate of a wss:// rendezvous was not trusted.
    case untrustedCertificate(String)
    /// The rendezvous presented another certificate than the one `--fingerprint` names: nothing
    /// was sent to it.
    case wrongCertificate(expected: ServerFingerprint, presented: ServerFingerprint)
}
