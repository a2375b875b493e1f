import ConfCore
import ConfWire

/// Where a peer's decoded audio goes: played (`pulse[:NAME]`, one stream per peer, in ConfIO),
/// dropped (`none`), or recorded (`--record`'s files). A call may have several at once.
///
/// A sink that stops working for a peer (the speaker went away, the disk filled up) says so once,
/// as the issue `play` returns, and from then on ignores that peer's frames; the call goes on.
/// Threading: the event loop thread only.
public protocol AudioSink: AnyObject {
    /// A peer's decoded 20 ms frame, played out at `at`.
    func play(_ pcm: [Int16], from peer: Participant, at: Instant) -> MediaIssue?
    /// The peer left the room: what this sink kept for it is closed.
    func peerLeft(_ id: ParticipantID)
    func close()
}

/// `--audio-sink none`: received audio is decoded (for talking detection) and dropped.
public final class NoAudioSink: AudioSink {
    public init() {}
    public func play(_ pcm: [Int16], from peer: Participant, at: Instant) -> MediaIssue? { nil }
    public func peerLeft(_ id: ParticipantID) {}
    public func close() {}
}
