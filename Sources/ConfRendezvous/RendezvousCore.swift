import ConfCore
import ConfWire

/// The rendezvous server's logic, without I/O (sans-IO, STYLE.md): rooms and their pins, joins,
/// knocks on locked rooms, seats kept for resuming, rate limits, relaying `signal` messages, expiry.
///
/// Feed it with `createRoom` (HTTP) and `handle(_:now:)` (WebSocket events and ticks), then drain
/// `pollOutput()` until nil. It reads no clock and opens no socket; randomness and the server's
/// keyed hash are injected. Not thread-safe: the I/O layer calls it from its one loop thread.
///
/// A connection's life:
///
///     opened ──join ok / resume ok──▶ joined ──leave──────────────────────▶ gone (room told: peer-left)
///        │  │                            │
///        │  └─join, room locked─▶ knocking ──admit──▶ joined
///        │                            │
///        │                            └──deny / timeout / withdrawn──▶ closed (not-admitted)
///        │                           joined ──closed / silence──▶ seat away ──grace over──▶ peer-left
///        │                                                           └──resume on a new connection──▶ joined
///        └──join refused / lobby timeout / flood──▶ closed by us
///
/// Without a `ServerKey` there are no resume tokens and a dropped seat is given up at once.
public final class RendezvousCore {
    public let config: RendezvousConfig
    var random: any RandomNumberGenerator
    let key: ServerKey?
    let wallClock: WallClockAnchor
    /// This process's number, carried in resume tokens (see `ResumeToken.instance`).
    let instance: UInt64
    var rooms: [RoomID: Room] = [:]
    var connections: [ConnectionID: Connection] = [:]
    /// Per-address counters, keyed by `ClientAddress.client` and `.network`.
    var failuresByClient: [String: SlidingWindowCounter] = [:]
    var failuresByNetwork: [String: SlidingWindowCounter] = [:]
    var createsByClient: [String: SlidingWindowCounter] = [:]
    var createsByNetwork: [String: SlidingWindowCounter] = [:]
    var roomsHeldByClient: [String: Int] = [:]
    var roomsHeldByNetwork: [String: Int] = [:]
    /// The rooms of this process, shared with its other workers; nil: `config.maxRooms` bounds
    /// this table alone. Set before the first request.
    public var roomBudget: SharedBudget?
    var knocksByClient: [String: Int] = [:]
    var knocksByNetwork: [String: Int] = [:]
    /// For the metrics page.
    public internal(set) var counters = RendezvousCounters()
    private var outputs: [RendezvousOutput] = []
    private var outputIndex = 0

    struct Room {
        var name: String
        var resolution: Resolution
        var pin: Pin
        var listenPin: Pin
        /// Who created it, for the share of the room table each client and network may hold.
        var creator: ClientAddress
        /// In join order; away seats included.
        var members: [Member] = []
        var nextParticipantNumber = 1
        var emptySince: Instant?
        /// Wrong pins answered as such; when `roomGuessBudget` of them are in the window, the room is locked.
        var wrongGuesses: SlidingWindowCounter
        /// Joins waiting on a locked room, in arrival order: knocks (right pin) and wrong pins alike.
        var waiting: [Waiter] = []
        var nextKnockNumber = 1
        /// Made again from a resume token after a restart: takes back seats named by tokens of the earlier process.
        var recreated = false

        var presentPublishers: [ConnectionID] {
            members.compactMap { $0.participant.role == .publisher ? $0.connection : nil }
        }
        var presentConnections: [ConnectionID] { members.compactMap(\.connection) }
    }

    struct Member {
        var participant: Participant
        /// Nil while away: the connection dropped without `leave` and the seat waits for a `resume`.
        var connection: ConnectionID?
        var awaySince: Instant?
        /// Away after `away` (a page closing or reloading): kept `briefAwayGrace`, not `awayGrace`.
        var awayBriefly = false
        /// Which resume token of this seat is the current one.
        var generation = 1
    }

    /// One join waiting on a locked room. A wrong pin waits exactly like a right one (`knock` nil),
    /// so that neither the messages nor their timing say which it was.
    struct Waiter {
        var connection: ConnectionID
        var client: ClientAddress
        var name: String
        /// Set for a right pin: what the knock asks to join as.
        var role: Role?
        var knock: KnockID?
        var deadline: Instant
        /// A publisher said no; the answer still waits for `deadline`.
        var denied = false
    }

    struct Connection {
        var address: ClientAddress
        var openedAt: Instant
        var lastHeard: Instant
        var joined: (room: RoomID, id: ParticipantID)?
        var knocking: RoomID?
        /// The STUN server handed to this connection when the rendezvous hands out itself.
        var selfSTUN: IceServer?
        var bucket = TokenBucket(rate: ProtocolLimits.messagesPerSecond, burst: ProtocolLimits.messageBurst)
        var closing = false
    }

    /// - Parameters:
    ///   - key: the server's keyed hash; with it, pins are derived from the secret and `joined`
    ///     carries a resume token.
    ///   - wallClock: relates `now` to Unix time, for token expiry across restarts.
    public init(config: RendezvousConfig, random: any RandomNumberGenerator, key: ServerKey? = nil,
                wallClock: WallClockAnchor = WallClockAnchor(instant: .zero, unixSeconds: 0)) {
        self.config = config
        self.random = random
        self.key = key
        self.wallClock = wallClock
        instance = UInt64.random(in: 1...UInt64.max, using: &self.random)
    }

    public var roomCount: Int { rooms.count }
    public var participantCount: Int { connections.values.filter { $0.joined != nil }.count }

    // MARK: Events

    public func handle(_ input: RendezvousInput, now: Instant) {
        switch input {
        case .opened(let id, let address, let host):
            var connection = Connection(address: ClientAddress(address), openedAt: now, lastHeard: now)
            if config.answersSTUN, let host { connection.selfSTUN = SelfSTUN.server(hostHeader: host) }
            connections[id] = connection
        case .text(let id, let text):
            received(text, on: id, now: now)
        case .binary(let id):
            guard connections[id] != nil else { return }
            refuse(id, .badMessage, "binary frames are not part of the protocol: send JSON text")
            close(id, code: CloseCode.unsupportedData, reason: "binary frame")
        case .closed(let id):
            guard let connection = connections.removeValue(forKey: id) else { return }
            if let joined = connection.joined { memberDropped(joined.id, from: joined.room, now: now) }
            if let room = connection.knocking { withdraw(id, from: room) }
        case .tick:
            expire(now: now)
        }
    }

    /// The next thing the I/O layer must do, or nil when there is nothing left.
    public func pollOutput() -> RendezvousOutput? {
        guard outputIndex < outputs.count else {
            outputs.removeAll(keepingCapacity: true)
            outputIndex = 0
            return nil
        }
        defer { outputIndex += 1 }
        return outputs[outputIndex]
    }

    /// Closes every connection. With `endRooms` (the embedded rendezvous stopping with its host),
    /// participants are first told their room is over; without it (a standing rendezvous going
    /// down for a restart) they may resume on the next process.
    public func shutdown(reason: String, endRooms: Bool = true) {
        for (id, connection) in connections {
            if endRooms && connection.joined != nil { send(.roomClosed(reason: reason), to: id) }
            close(id, code: CloseCode.goingAway, reason: reason)
        }
    }

    private func received(_ text: String, on id: ConnectionID, now: Instant) {
        guard var connection = connections[id], !connection.closing else { return }
        connection.lastHeard = now
        guard connection.bucket.take(at: now) else {
            connections[id] = connection
            refuse(id, .flood, "more than \(ProtocolLimits.messagesPerSecond) messages a second: slow down")
            close(id, code: CloseCode.policyViolation, reason: "flood")
            log("closed \(id) from \(connection.address): flood")
            return
        }
        connections[id] = connection

        let message: ClientMessage
        do {
            message = try ClientMessage(text: text)
        } catch {
            if case .tooLarge = error { refuse(id, .tooLarge, "\(error)") } else { refuse(id, .badMessage, "\(error)") }
            return
        }
        switch message {
        case .join(let room, let pin, let name): join(room, pin: pin, name: name, on: id, now: now)
        case .signal(let to, let payload): relay(payload, to: to, from: id)
        case .leave:
            // Tell the room now rather than when the close handshake ends; a left seat is not kept.
            if let joined = connections[id]?.joined {
                connections[id]?.joined = nil
                removeMember(joined.id, from: joined.room, now: now)
            }
            close(id, code: CloseCode.normal, reason: "left")
        case .away:
            if let joined = connections[id]?.joined {
                connections[id]?.joined = nil
                memberDropped(joined.id, from: joined.room, now: now, briefly: true)
            }
            close(id, code: CloseCode.goingAway, reason: "away")
        case .ping: send(.pong, to: id)
        case .resume(let token): resume(token, on: id, now: now)
        case .admit(let knock): answer(knock, admit: true, from: id, now: now)
        case .deny(let knock): answer(knock, admit: false, from: id, now: now)
        }
    }

    private func relay(_ payload: JSONValue, to target: ParticipantID, from id: ConnectionID) {
        guard let joined = connections[id]?.joined, let room = rooms[joined.room] else {
            return refuse(id, .notJoined, "join a room before sending signal messages")
        }
        guard target != joined.id, let member = room.members.first(where: { $0.participant.id == target }) else {
            return refuse(id, .noSuchPeer, "no participant \(target) in room \(joined.room)")
        }
        // An away member's signals are dropped: its links renegotiate if they need to once it is back.
        if let connection = member.connection {
            counters.relays += 1
            send(.signal(from: joined.id, payload: payload), to: connection)
        }
    }

    // MARK: Output helpers

    func send(_ message: ServerMessage, to id: ConnectionID) {
        outputs.append(.send(id, message.json.serialized))
    }

    func refuse(_ id: ConnectionID, _ code: ErrorCode, _ message: String) {
        counters.refusals[code, default: 0] += 1
        send(.error(code: code, message: message), to: id)
    }

    /// A refused join (or resume) ends the connection: the client learns why, then is closed.
    func refuseJoin(_ id: ConnectionID, _ code: ErrorCode, _ message: String) {
        refuse(id, code, message)
        close(id, code: CloseCode.normal, reason: code.rawValue)
    }

    func close(_ id: ConnectionID, code: UInt16, reason: String) {
        guard connections[id]?.closing == false else { return }
        connections[id]?.closing = true
        outputs.append(.close(id, code: code, reason: reason))
    }

    func log(_ line: String) { outputs.append(.log(line)) }

    /// Connection `id` goes to another worker; forgotten here as if it had closed (it joined nothing).
    func handOver(_ id: ConnectionID, to worker: Int, otherwise refusal: ServerMessage) {
        guard connections.removeValue(forKey: id) != nil else { return }
        outputs.append(.handOver(id, worker: worker, otherwise: refusal.json.serialized))
    }
}
