import ConfCore
import ConfWire

/// Rooms: creation with fair sharing of the room table, seats, and expiry.
extension RendezvousCore {
    public enum CreateRoomFailure: Error, Equatable {
        /// HTTP 429, `rate-limited`: this client or network created too many rooms lately, or holds its share.
        case rateLimited(String)
        /// HTTP 503, `server-full`: the table holds `maxRooms` (or the workers' shared room budget is spent).
        case serverFull
        /// HTTP 403, `forbidden`: not for this requester (another site's page, no room key or a wrong one).
        case forbidden(String)
        /// HTTP 415, `bad-request`: the body is not declared as JSON.
        case unsupportedMediaType(String)

        public var message: String {
            switch self {
            case .rateLimited(let why), .forbidden(let why), .unsupportedMediaType(let why): why
            case .serverFull: "this rendezvous holds as many rooms as it may: try later"
            }
        }
    }

    /// Refusals, in order: rooms created in the last minute by the client, then by its network
    /// (429); rooms held at once by the client (1 % of `maxRooms`), by its network (10 %) (429);
    /// the whole table (503). A refused request is not counted.
    public func createRoom(_ request: CreateRoomRequest, from address: String, now: Instant) throws(CreateRoomFailure) -> RoomCreated {
        let client = ClientAddress(address)
        var byClient = createsByClient[client.client] ?? SlidingWindowCounter(window: .seconds(60))
        var byNetwork = createsByNetwork[client.network] ?? SlidingWindowCounter(window: .seconds(60))
        if byClient.count(at: now) >= config.roomsPerMinutePerAddress {
            throw .rateLimited("too many rooms created from your address in the last minute (\(config.roomsPerMinutePerAddress)): wait a minute")
        }
        if byNetwork.count(at: now) >= config.roomsPerMinutePerNetwork {
            throw .rateLimited("too many rooms created from your network (\(client.network)) in the last minute: wait a minute")
        }
        if roomsHeldByClient[client.client, default: 0] >= config.roomsHeldPerClient {
            throw .rateLimited("your address already holds \(config.roomsHeldPerClient) rooms: rooms are forgotten \(Int(config.roomIdleTimeout.milliseconds / 1000)) s after they empty")
        }
        if roomsHeldByNetwork[client.network, default: 0] >= config.roomsHeldPerNetwork {
            throw .rateLimited("your network (\(client.network)) already holds \(config.roomsHeldPerNetwork) rooms: try later")
        }
        guard takeRoomPlace() else { throw .serverFull }  // last: nothing below refuses
        byClient.record(at: now)
        byNetwork.record(at: now)
        createsByClient[client.client] = byClient
        createsByNetwork[client.network] = byNetwork

        var id: RoomID
        repeat {
            id = config.partition.map { $0.roomID(randomDigits: digits) } ?? RoomID(digits(8))!
        } while rooms[id] != nil || config.workers.map { !$0.owns(id) } == true  // 1 try in N
        let pins: (pin: Pin, listenPin: Pin)
        if let key {
            pins = key.pins(for: id)
        } else {
            let pin = Pin(digits(6))!
            var listenPin: Pin
            repeat { listenPin = Pin(digits(6))! } while listenPin == pin
            pins = (pin, listenPin)
        }
        addRoom(id, Room(name: request.name, resolution: request.resolution, pin: pins.pin, listenPin: pins.listenPin,
                         creator: client, emptySince: now, wrongGuesses: SlidingWindowCounter(window: config.roomGuessWindow)))
        counters.roomsCreated += 1
        log("room \(id) created by \(client) (\(request.resolution.rawValue))")
        return RoomCreated(room: id, pin: pins.pin, listenPin: pins.listenPin, name: request.name, resolution: request.resolution)
    }

    func digits(_ count: Int) -> String {
        String((0..<count).map { _ in Character(String(Int.random(in: 0...9, using: &random))) })
    }

    /// Whether another room may be held; with a shared budget, takes its place there (given back
    /// when the room is forgotten).
    func takeRoomPlace() -> Bool { roomBudget.map { $0.take() } ?? (rooms.count < config.maxRooms) }

    func addRoom(_ id: RoomID, _ room: Room) {
        rooms[id] = room
        roomsHeldByClient[room.creator.client, default: 0] += 1
        roomsHeldByNetwork[room.creator.network, default: 0] += 1
    }

    private func forgetRoom(_ id: RoomID) {
        guard let room = rooms.removeValue(forKey: id) else { return }
        roomBudget?.release()
        Self.decrement(&roomsHeldByClient, room.creator.client)
        Self.decrement(&roomsHeldByNetwork, room.creator.network)
        log("room \(id) expired")
    }

    static func decrement(_ counts: inout [String: Int], _ key: String) {
        guard let count = counts[key] else { return }
        counts[key] = count > 1 ? count - 1 : nil
    }

    // MARK: Seats

    /// Gives `name` the room's next participant id and seats it.
    func seat(_ name: String, role: Role, on id: ConnectionID, in roomID: RoomID, now: Instant) {
        guard var room = rooms[roomID] else { return }
        let participant = Participant(id: ParticipantID("p\(room.nextParticipantNumber)"), name: name, role: role)
        room.nextParticipantNumber += 1
        rooms[roomID] = room
        counters.joins += 1
        addMember(participant, on: id, to: roomID, now: now)
        log("\(participant.id) joined room \(roomID) as \(role.rawValue) on \(id) from \(connections[id]?.address.description ?? "?")")
    }

    /// Seats `participant` (new, or named by a resume token in a recreated room): the others
    /// present are told `peer-joined`, the newcomer gets `joined`.
    func addMember(_ participant: Participant, on id: ConnectionID, to roomID: RoomID, now: Instant) {
        guard var room = rooms[roomID] else { return }
        for connection in room.presentConnections { send(.peerJoined(participant), to: connection) }
        room.members.append(Member(participant: participant, connection: id))
        room.emptySince = nil
        rooms[roomID] = room
        connections[id]?.joined = (roomID, participant.id)
        sendJoined(participant.id, in: roomID, to: id, now: now)
    }

    /// `joined` with the roster (away seats included: they are still held) and a fresh resume token;
    /// a publisher also hears of the knocks still waiting.
    func sendJoined(_ you: ParticipantID, in roomID: RoomID, to id: ConnectionID, now: Instant) {
        guard let room = rooms[roomID], let me = room.members.first(where: { $0.participant.id == you }) else { return }
        let token = key.map { key in
            ResumeToken(instance: instance, room: roomID, roomName: room.name, resolution: room.resolution, participant: me.participant,
                        generation: me.generation,
                        expires: wallClock.unixSeconds(at: now) + Int64(config.resumeTokenLifetime.milliseconds / 1000)).signed(with: key)
        }
        let peers = room.members.filter { $0.participant.id != you }.map(\.participant)
        send(.joined(.init(you: you, role: me.participant.role, room: roomID, roomName: room.name, resolution: room.resolution,
                           peers: peers, iceServers: iceServers(for: id), resumeToken: token)), to: id)
        if me.participant.role == .publisher {
            for waiter in room.waiting where !waiter.denied {
                if let knock = waiter.knock, let role = waiter.role { send(.knock(.init(id: knock, name: waiter.name, role: role)), to: id) }
            }
        }
    }

    /// The operator's ICE servers, and this rendezvous's own STUN service where no STUN server is
    /// among them.
    func iceServers(for id: ConnectionID) -> [IceServer] {
        guard let own = connections[id]?.selfSTUN,
              !config.iceServers.contains(where: { $0.urls.contains { $0.hasPrefix("stun:") } }) else { return config.iceServers }
        return [own] + config.iceServers
    }

    /// The member's connection ended without `leave`: with resume tokens the seat waits
    /// `awayGrace` for a `resume` and the others are told nothing yet; without, it is given up.
    func memberDropped(_ participant: ParticipantID, from roomID: RoomID, now: Instant, briefly: Bool = false) {
        guard key != nil else { return removeMember(participant, from: roomID, now: now) }
        guard var room = rooms[roomID], let index = room.members.firstIndex(where: { $0.participant.id == participant }) else { return }
        room.members[index].connection = nil
        room.members[index].awaySince = now
        room.members[index].awayBriefly = briefly
        rooms[roomID] = room
        log("\(participant) of room \(roomID) is away")
    }

    func removeMember(_ participant: ParticipantID, from roomID: RoomID, now: Instant) {
        guard var room = rooms[roomID] else { return }
        room.members.removeAll { $0.participant.id == participant }
        for connection in room.presentConnections { send(.peerLeft(participant), to: connection) }
        if room.members.isEmpty { room.emptySince = now }
        rooms[roomID] = room
        log("\(participant) left room \(roomID)")
    }

    // MARK: Expiry

    func expire(now: Instant) {
        for (id, room) in rooms {
            endWaits(in: id, now: now)
            if let since = room.emptySince, now.since(since) >= config.roomIdleTimeout {
                forgetRoom(id)
                continue
            }
            for member in room.members {
                if let since = member.awaySince, now.since(since) >= (member.awayBriefly ? config.briefAwayGrace : config.awayGrace) {
                    removeMember(member.participant.id, from: id, now: now)
                }
            }
        }
        for (id, connection) in connections where !connection.closing {
            if connection.joined == nil, connection.knocking == nil, now.since(connection.openedAt) >= config.lobbyTimeout {
                refuse(id, .badRequest, "no join within \(Int(config.lobbyTimeout.milliseconds / 1000)) s")
                close(id, code: CloseCode.policyViolation, reason: "no join")
            } else if connection.joined != nil, now.since(connection.lastHeard) >= config.silenceTimeout {
                close(id, code: CloseCode.goingAway, reason: "silent for too long")
                log("closed \(id): silent for too long")
            }
        }
        for counters in [\RendezvousCore.failuresByClient, \.failuresByNetwork, \.createsByClient, \.createsByNetwork] {
            self[keyPath: counters] = self[keyPath: counters].filter { _, counter in
                var counter = counter
                return !counter.isEmpty(at: now)
            }
        }
    }
}
