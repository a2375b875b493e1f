import ConfCore

/// One WebSocket connection to the rendezvous, numbered by the I/O layer.
public struct ConnectionID: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt64
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }
    public var description: String { "c\(rawValue)" }
}

/// What the I/O layer tells the core.
public enum RendezvousInput: Sendable {
    /// A WebSocket connection was established from `address` (the client's IP, for rate limits);
    /// `host` is its request's Host header as sent (hostile), when it came to us directly rather
    /// than through a load balancer.
    case opened(ConnectionID, address: String, host: String? = nil)
    case text(ConnectionID, String)
    /// A binary frame: not part of the protocol.
    case binary(ConnectionID)
    /// The connection is gone, however it ended. The core forgets it and tells its room.
    case closed(ConnectionID)
    /// Time passed: expire idle rooms and silent connections. Call about once a second.
    case tick
}

/// What the core asks the I/O layer to do.
public enum RendezvousOutput: Equatable, Sendable {
    case send(ConnectionID, String)
    /// Close the WebSocket with this code (RFC 6455 section 7.4); a `.closed` input follows.
    case close(ConnectionID, code: UInt16, reason: String)
    /// A line for the operator's log. Never contains a pin.
    case log(String)
    /// The connection belongs to `worker` of this rendezvous (a join or resume for a room it
    /// holds): hand it over with every byte it sent, and send nothing more on it here. The core
    /// has forgotten it (no `.closed` is needed). If it cannot be handed over, send `otherwise`
    /// (an `error` message) and close it with the normal code and reason `wrong-instance`.
    case handOver(ConnectionID, worker: Int, otherwise: String)
}

/// WebSocket close codes the rendezvous uses (RFC 6455 section 7.4.1).
public enum CloseCode {
    public static let normal: UInt16 = 1000
    public static let goingAway: UInt16 = 1001
    public static let unsupportedData: UInt16 = 1003
    public static let policyViolation: UInt16 = 1008
    public static let tooBig: UInt16 = 1009
}
