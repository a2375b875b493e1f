import ConfWire

/// What went wrong with a backend while the call goes on without it: reported once each.
public enum MediaIssue: Equatable, Sendable {
    case microphoneLost
    case cameraLost
    /// The playback stream of one peer ended (its device vanished, the sound server went away).
    case speakerLost(Participant)
    /// A peer's playback stream could not be opened; `reason` is the library's words.
    case cannotPlay(Participant, reason: String)
    /// A recording file stopped; `reason` is the system's words ("No space left on device").
    case recordError(Participant, path: String, reason: String)
}
