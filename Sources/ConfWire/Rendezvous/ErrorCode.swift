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
}
