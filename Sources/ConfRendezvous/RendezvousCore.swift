import ConfCore
import ConfWire

/// The rendezvous server's logic, without I/O (sans-IO, STYLE.md): rooms and their pins, joins,
/// rate limits, relaying `signal` messages, expiry.
///
/// Feed it with `createRoom` (HTTP) and `handle(_:now:)` (WebSocket events and ticks), then drain
/// `pollOutput()` until nil. It reads no clock and opens no socket; randomness is injected.
/// Not thread-safe: the I/O layer calls it from its one loop thread.
///
/// A connection's life:
///
///     opened ──join ok──▶ joined ──leave / closed / silence──▶ gone (room told: peer-left)
///        │
///        └──join refused / lobby timeout / flood──▶ closed by us
public final class RendezvousCore {
    public let config: RendezvousConfig
    private var random: any RandomNumberGenerator
    private var rooms: [RoomID: Room] = [:]
    private var connections: [ConnectionID: Connection] = [:]
    private var wrongPinsByAddress: [String: SlidingWindowCounter] = [:]
    private var createsByAddress: [String: SlidingWindowCounter] = [:]
    private var outputs: [RendezvousOutput] = []
    private var outputIndex = 0

    struct Room {
        var name: String
        var resolution: Resolution
        var pin: Pin
        var listenPin: Pin
        /// In join order.
        var members: [(participant: Participant, connection: ConnectionID)] = []
        var nextParticipantNumber = 1
        var emptySince: Instant?
        var wrongPins = SlidingWindowCounter(window: ProtocolLimits.wrongPinWindow)
    }

    struct Connection {
        var address: String
        var openedAt: Instant
        var lastHeard: Instant
        var joined: (room: RoomID, id: ParticipantID)?
        var bucket = TokenBucket(rate: ProtocolLimits.messagesPerSecond, burst: ProtocolLimits.messageBurst)
        var closing = false
    }

    public init(config: RendezvousConfig, random: any RandomNumberGenerator) {
        self.config = config
        self.random = random
    }

    public var roomCount: Int { rooms.count }
    public var participantCount: Int { connections.values.filter { $0.joined != nil }.count }

    // MARK: Rooms (HTTP)

    public enum CreateRoomFailure: Error, Equatable {
        case rateLimited
        case serverFull
    }

    public func createRoom(_ request: CreateRoomRequest, from address: String, now: Instant) throws(CreateRoomFailure) -> RoomCreated {
        var creates = createsByAddress[address] ?? SlidingWindowCounter(window: .seconds(60))
        guard creates.count(at: now) < config.roomsPerMinutePerAddress else { throw .rateLimited }
        guard rooms.count < config.maxRooms else { throw .serverFull }
        creates.record(at: now)
        createsByAddress[address] = creates

        var id: RoomID
        repeat { id = RoomID(digits(8))! } while rooms[id] != nil
        let pin = Pin(digits(6))!
        var listenPin: Pin
        repeat { listenPin = Pin(digits(6))! } while listenPin == pin
        rooms[id] = Room(name: request.name, resolution: request.resolution, pin: pin, listenPin: listenPin, emptySince: now)
        log("room \(id) created by \(address) (\(request.resolution.rawValue))")
        return RoomCreated(room: id, pin: pin, listenPin: listenPin, name: request.name, resolution: request.resolution)
    }

    private func digits(_ count: Int) -> String {
        String((0..<count).map { _ in Character(String(Int.random(in: 0...9, using: &random))) })
    }

    // MARK: Events

    public func handle(_ input: RendezvousInput, now: Instant) {
        switch input {
        case .opened(let id, let address):
            connections[id] = Connection(address: address, openedAt: now, lastHeard: now)
        case .text(let id, let text):
            received(text, on: id, now: now)
        case .binary(let id):
            guard connections[id] != nil else { return }
            refuse(id, .badMessage, "binary frames are not part of the protocol: send JSON text")
            close(id, code: CloseCode.unsupportedData, reason: "binary frame")
        case .closed(let id):
            guard let connection = connections.removeValue(forKey: id) else { return }
            if let joined = connection.joined { removeMember(joined.id, from: joined.room, now: now) }
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

    /// Tells every participant their room is over and closes every connection (the embedded
    /// rendezvous stopping with its host).
    public func shutdown(reason: String) {
        for (id, connection) in connections {
            if connection.joined != nil { send(.roomClosed(reason: reason), to: id) }
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
            // Tell the room now rather than when the close handshake ends.
            if let joined = connections[id]?.joined {
                connections[id]?.joined = nil
                removeMember(joined.id, from: joined.room, now: now)
            }
            close(id, code: CloseCode.normal, reason: "left")
        case .ping: send(.pong, to: id)
        case .resume, .admit, .deny:
            refuse(id, .badMessage, "not supported by this rendezvous yet")
        }
    }

    private func join(_ roomID: RoomID, pin: Pin, name: String, on id: ConnectionID, now: Instant) {
        guard let connection = connections[id] else { return }
        if connection.joined != nil {
            return refuse(id, .alreadyJoined, "this connection already joined a room: open another connection to join another")
        }
        let address = connection.address
        var addressFailures = wrongPinsByAddress[address] ?? SlidingWindowCounter(window: ProtocolLimits.wrongPinWindow)
        if addressFailures.count(at: now) >= ProtocolLimits.maxWrongPins {
            return refuseJoin(id, .rateLimited, "too many wrong pins from your address: wait a minute and try again")
        }
        guard var room = rooms[roomID] else {
            addressFailures.record(at: now)
            wrongPinsByAddress[address] = addressFailures
            log("join refused on \(id) from \(address): no room \(roomID)")
            return refuseJoin(id, .noSuchRoom, "there is no room \(roomID) on this rendezvous: check the id, or the room expired")
        }
        if room.wrongPins.count(at: now) >= ProtocolLimits.maxWrongPins {
            return refuseJoin(id, .rateLimited, "too many wrong pins for room \(roomID): wait a minute and try again")
        }
        let role: Role
        if pin == room.pin {
            role = .publisher
        } else if pin == room.listenPin {
            role = .listener
        } else {
            room.wrongPins.record(at: now)
            rooms[roomID] = room
            addressFailures.record(at: now)
            wrongPinsByAddress[address] = addressFailures
            log("join refused on \(id) from \(address): wrong pin for room \(roomID)")
            return refuseJoin(id, .wrongPin, "wrong pin for room \(roomID)")
        }
        guard room.members.count < ProtocolLimits.maxParticipants else {
            return refuseJoin(id, .roomFull, "room \(roomID) already has \(ProtocolLimits.maxParticipants) participants")
        }

        let participant = Participant(id: ParticipantID("p\(room.nextParticipantNumber)"), name: name, role: role)
        room.nextParticipantNumber += 1
        let peers = room.members.map(\.participant)
        for member in room.members { send(.peerJoined(participant), to: member.connection) }
        room.members.append((participant, id))
        room.emptySince = nil
        rooms[roomID] = room
        connections[id]?.joined = (roomID, participant.id)
        send(.joined(.init(you: participant.id, role: role, room: roomID, roomName: room.name, resolution: room.resolution,
                           peers: peers, iceServers: config.iceServers)), to: id)
        log("\(participant.id) joined room \(roomID) as \(role.rawValue) on \(id) from \(address)")
    }

    private func relay(_ payload: JSONValue, to target: ParticipantID, from id: ConnectionID) {
        guard let joined = connections[id]?.joined, let room = rooms[joined.room] else {
            return refuse(id, .notJoined, "join a room before sending signal messages")
        }
        guard target != joined.id, let member = room.members.first(where: { $0.participant.id == target }) else {
            return refuse(id, .noSuchPeer, "no participant \(target) in room \(joined.room)")
        }
        send(.signal(from: joined.id, payload: payload), to: member.connection)
    }

    private func removeMember(_ participant: ParticipantID, from roomID: RoomID, now: Instant) {
        guard var room = rooms[roomID] else { return }
        room.members.removeAll { $0.participant.id == participant }
        for member in room.members { send(.peerLeft(participant), to: member.connection) }
        if room.members.isEmpty { room.emptySince = now }
        rooms[roomID] = room
        log("\(participant) left room \(roomID)")
    }

    private func expire(now: Instant) {
        for (id, room) in rooms {
            if let since = room.emptySince, now.since(since) >= config.roomIdleTimeout {
                rooms[id] = nil
                log("room \(id) expired")
            }
        }
        for (id, connection) in connections where !connection.closing {
            if connection.joined == nil, now.since(connection.openedAt) >= config.lobbyTimeout {
                refuse(id, .badRequest, "no join within \(Int(config.lobbyTimeout.milliseconds / 1000)) s")
                close(id, code: CloseCode.policyViolation, reason: "no join")
            } else if connection.joined != nil, now.since(connection.lastHeard) >= config.silenceTimeout {
                close(id, code: CloseCode.goingAway, reason: "silent for too long")
                log("closed \(id): silent for too long")
            }
        }
        wrongPinsByAddress = wrongPinsByAddress.filter { _, counter in
            var counter = counter
            return !counter.isEmpty(at: now)
        }
        createsByAddress = createsByAddress.filter { _, counter in
            var counter = counter
            return !counter.isEmpty(at: now)
        }
    }

    // MARK: Output helpers

    private func send(_ message: ServerMessage, to id: ConnectionID) {
        outputs.append(.send(id, message.json.serialized))
    }

    private func refuse(_ id: ConnectionID, _ code: ErrorCode, _ message: String) {
        send(.error(code: code, message: message), to: id)
    }

    /// A refused join ends the connection: the client learns why, then is closed.
    private func refuseJoin(_ id: ConnectionID, _ code: ErrorCode, _ message: String) {
        refuse(id, code, message)
        close(id, code: CloseCode.normal, reason: code.rawValue)
    }

    private func close(_ id: ConnectionID, code: UInt16, reason: String) {
        guard connections[id]?.closing == false else { return }
        connections[id]?.closing = true
        outputs.append(.close(id, code: code, reason: reason))
    }

    private func log(_ line: String) { outputs.append(.log(line)) }
}
