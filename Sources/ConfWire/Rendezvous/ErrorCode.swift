/// The `code` of an `error` message: stable strings a client can switch on (docs/PROTOCOL.md).
public enum ErrorCode: String, Sendable, CaseIterable {
    case badMessage = "bad-message"
    case badRequest = "bad-request"
    case wrongPin = "wrong-pin"
    case noSuchRoom = "no-such-room"
    case roomFull = "room-full"
    case rateLimited = "rate-limited"
    case notJoined = "not-joined"
    case alreadyJoined = "already-joined"
    case noSuchPeer = "no-such-peer"
    case tooLarge = "too-large"
    case flood = "flood"
    case serverFull = "server-full"
    case notFound = "not-found"
    /// Not for this requester: a room without the rendezvous's room key, from another site's
    /// page, or `/v1/metrics` from a network not let in.
    case forbidden = "forbidden"
    /// A knock on a locked room was denied, or nobody answered it in time.
    case notAdmitted = "not-admitted"
    /// A `resume` token was not accepted (forged, expired, or its seat was given up).
    case resumeRefused = "resume-refused"
    /// A `join` or `resume` for a room another instance of a partitioned rendezvous holds.
    case wrongInstance = "wrong-instance"
    /// Too many connections from one address (or network) at once.
    case tooManyConnections = "too-many-connections"
}
