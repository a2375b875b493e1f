import ConfWire

/// What a rendezvous operator can set (`conf rendezvous --help`). The figures behind the defaults
/// are in docs/SECURITY.md, "Rate limits".
public struct RendezvousConfig: Sendable {
    /// How long a room with nobody in it lives before it is forgotten.
    public var roomIdleTimeout: Duration = .seconds(600)
    /// How long a connection may stay open without joining a room (a knock waits longer: `knockTimeout`).
    public var lobbyTimeout: Duration = .seconds(15)
    /// A joined connection that sends nothing (clients ping every 15 s) for this long is dropped.
    public var silenceTimeout: Duration = .seconds(45)
    /// This instance's share of the room ids when several serve one address (`--instance K/N`).
    public var partition: RoomPartition?
    /// This worker's share of the rooms when the process runs several (`--workers N`).
    public var workers: WorkerShare?
    /// Handed to every participant in `joined`.
    public var iceServers: [IceServer] = []
    /// Whether this rendezvous answers STUN Binding requests on UDP at its own port number. Then,
    /// when `iceServers` names no STUN server, each participant is also handed `stun:` at the host
    /// and port it reached the rendezvous by (its request's Host), so that it learns its address
    /// outside a NAT from the server it already talks to.
    public var answersSTUN = false

    // MARK: Room creation (fair sharing of the room table)

    /// Who may make rooms at all (`RoomCreationPolicy`): anyone by default, or holders of a key.
    public var roomCreation = RoomCreationPolicy.open

    /// Rooms one client (an IPv4 address, an IPv6 /64) may create a minute.
    public var roomsPerMinutePerAddress = 30
    /// Rooms one network (an IPv4 /24, an IPv6 /48) may create a minute.
    public var roomsPerMinutePerNetwork = 120
    /// Rooms held at once; beyond it, creation fails with `server-full`.
    public var maxRooms = 20_000
    /// The share of `maxRooms` one client may hold at once (1 %), and one network (10 %), so that
    /// neither can take the table.
    public var roomsHeldPerClient: Int { max(1, maxRooms / 100) }
    public var roomsHeldPerNetwork: Int { max(1, maxRooms / 10) }

    /// Besides loopback, the networks that may read `/v1/metrics` (`--metrics-from`).
    public var metricsFrom: [AddressRange] = []

    /// Whether a client at `address` may read `/v1/metrics`.
    public func mayReadMetrics(_ address: String) -> Bool {
        (AddressRange.loopback + metricsFrom).contains { $0.contains(address) }
    }

    // MARK: Pins

    /// Wrong pins (and unknown room ids, and any attempt on a locked room) one client may send in
    /// `wrongPinWindow`, and one network.
    public var wrongPinsPerClient = 10
    public var wrongPinsPerNetwork = 30
    public var wrongPinWindow: Duration = .seconds(60)
    /// Wrong pins a room answers in `roomGuessWindow` (sliding). Past it the room is locked: every
    /// join, right pin or wrong, knocks and waits for a publisher.
    public var roomGuessBudget = 10
    public var roomGuessWindow: Duration = .seconds(3600)
    /// How long a knock waits for an answer; a wrong pin in a locked room waits exactly as long.
    public var knockTimeout: Duration = .seconds(60)
    /// Joins waiting on locked rooms at once (right pin or wrong) from one client, one network.
    public var knocksPerClient = 2
    public var knocksPerNetwork = 8
    /// Joins waiting on one room at once, right pin or wrong: a memory bound, far above what
    /// 20 guesses a second waiting 60 s each hold (1,200), so a flood does not keep the right pin out.
    public var waitersPerRoom = 2_048
    /// Knocks shown to a room's publishers at once; a right pin beyond it waits like a wrong one,
    /// so nobody holding the pin can flood the publishers.
    public var knocksPerRoom = 8

    // MARK: Resume

    /// How long a seat whose connection dropped without `leave` stays "away", resumable, before
    /// the others are told `peer-left`.
    public var awayGrace: Duration = .seconds(30)
    /// How long a seat whose client said `away` (a page closing or reloading) waits for its
    /// `resume`: a reload is back within it, a closed tab's seat is given up by the next tick.
    public var briefAwayGrace: Duration = .seconds(1)
    /// How long a resume token is good for after it was handed out (it also bounds recreating a
    /// room after a restart).
    public var resumeTokenLifetime: Duration = .seconds(12 * 3600)

    public init() {}
}
