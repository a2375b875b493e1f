/// Sizes and rates the rendezvous enforces (docs/PROTOCOL.md, "Limits").
public enum ProtocolLimits {
    /// Largest WebSocket message the server accepts; a larger frame closes the connection (1009).
    public static let maxMessageBytes = 65_536
    /// Largest serialized `payload` of a `signal` message.
    public static let maxSignalPayloadBytes = 32_768
    /// Largest body of `POST /v1/rooms`.
    public static let maxCreateBodyBytes = 4_096
    /// Participants in one room, listeners included.
    public static let maxParticipants = 4
    /// Wrong pins (or unknown rooms) allowed per room and per client address in `wrongPinWindow`.
    public static let maxWrongPins = 10
    public static let wrongPinWindow: Duration = .seconds(60)
    /// Messages one connection may send per second on average, with bursts up to `messageBurst`.
    public static let messagesPerSecond = 50
    public static let messageBurst = 200
    /// Longest `resume` token a client may send back.
    public static let maxResumeTokenBytes = 1024
    /// Deepest JSON nesting accepted in any message.
    public static let maxJSONDepth = 32
}
