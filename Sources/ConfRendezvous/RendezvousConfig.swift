import ConfWire

/// What a rendezvous operator can set (`conf rendezvous --help`).
public struct RendezvousConfig: Sendable {
    /// How long a room with nobody in it lives before it is forgotten.
    public var roomIdleTimeout: Duration = .seconds(600)
    /// How long a connection may stay open without joining a room.
    public var lobbyTimeout: Duration = .seconds(15)
    /// A joined connection that sends nothing (clients ping every 15 s) for this long is dropped.
    public var silenceTimeout: Duration = .seconds(45)
    /// Rooms one address may create a minute.
    public var roomsPerMinutePerAddress = 30
    /// Rooms held at once; beyond it, creation fails with `server-full`.
    public var maxRooms = 20_000
    /// Handed to every participant in `joined`.
    public var iceServers: [IceServer] = []

    public init() {}
}
