import ConfCore
import ConfWire

/// Joining with a pin, and the knock on a locked room (docs/SECURITY.md, "Guessing a pin").
///
/// A room answers at most `roomGuessBudget` wrong pins in `roomGuessWindow`. Past that it is
/// locked: every join, right pin or wrong, gets the same `knocking` and waits. A right pin becomes
/// a `knock` to the publishers present; a wrong pin waits out the same `knockTimeout`. Unless a
/// publisher admits it, each ends the same way at the same time: `error not-admitted`. A guesser
/// therefore learns nothing past the budget, and the right pin is never refused for someone
/// else's wrong ones.
extension RendezvousCore {
    func join(_ roomID: RoomID, pin: Pin, name: String, on id: ConnectionID, now: Instant) {
        guard let connection = connections[id] else { return }
        if connection.joined != nil || connection.knocking != nil {
            return refuse(id, .alreadyJoined, "this connection already joined a room: open another connection to join another")
        }
        // Misrouted, not guessed: not counted against the address (the worker that holds the
        // room counts it there).
        if routedElsewhere(roomID, id) { return }
        let address = connection.address
        if let why = attemptsExhausted(address, now: now) { return refuseJoin(id, .rateLimited, why) }
        guard var room = rooms[roomID] else {
            recordFailedAttempt(address, now: now)
            log("join refused on \(id) from \(address): no room \(roomID)")
            return refuseJoin(id, .noSuchRoom, "there is no room \(roomID) on this rendezvous: check the id, or the room expired")
        }
        if room.wrongGuesses.count(at: now) >= config.roomGuessBudget {
            // Every attempt on a locked room counts against the address, right pin or wrong, so
            // that being rate-limited later says nothing about the pins tried.
            recordFailedAttempt(address, now: now)
            return knock(on: roomID, pin: pin, name: name, from: id, now: now)
        }
        let role: Role
        if pin == room.pin {
            role = .publisher
        } else if pin == room.listenPin {
            role = .listener
        } else {
            room.wrongGuesses.record(at: now)
            rooms[roomID] = room
            counters.wrongPins += 1
            recordFailedAttempt(address, now: now)
            log("join refused on \(id) from \(address): wrong pin for room \(roomID)")
            return refuseJoin(id, .wrongPin, "wrong pin for room \(roomID)")
        }
        guard room.members.count < ProtocolLimits.maxParticipants else {
            return refuseJoin(id, .roomFull, "room \(roomID) already has \(ProtocolLimits.maxParticipants) participants")
        }
        seat(name, role: role, on: id, in: roomID, now: now)
    }

    /// A join or resume for a room this core does not hold, on a connection that opened `/v1/ws`
    /// without `?room=` (or through a balancer that does not route by it). Another worker of this
    /// rendezvous holds it: the connection is handed over to that worker with what it sent
    /// (`handOver`), and forgotten here; the transport sends the refusal in its place only if it
    /// cannot (`otherwise`). Another instance holds it: refused with `wrong-instance`. Returns
    /// whether the connection went elsewhere. Misrouted, not guessed: never counted against the address.
    func routedElsewhere(_ room: RoomID, _ id: ConnectionID) -> Bool {
        if let partition = config.partition, !partition.owns(room) {
            refuseJoin(id, .wrongInstance, partition.refusal(room))
            return true
        }
        guard let workers = config.workers, !workers.owns(room) else { return false }
        let why = "room \(room) is held by another worker of this rendezvous: open the WebSocket at /v1/ws?room=\(room)"
        handOver(id, to: WorkerShare.owner(of: room, among: workers.count), otherwise: .error(code: .wrongInstance, message: why))
        return true
    }

    // MARK: Per-address limits

    /// Why this client or its network may not try again yet, or nil.
    func attemptsExhausted(_ address: ClientAddress, now: Instant) -> String? {
        if var counter = failuresByClient[address.client], counter.count(at: now) >= config.wrongPinsPerClient {
            return "too many wrong pins from your address: wait a minute and try again"
        }
        if var counter = failuresByNetwork[address.network], counter.count(at: now) >= config.wrongPinsPerNetwork {
            return "too many wrong pins from your network (\(address.network)): wait a minute and try again"
        }
        return nil
    }

    func recordFailedAttempt(_ address: ClientAddress, now: Instant) {
        failuresByClient[address.client, default: SlidingWindowCounter(window: config.wrongPinWindow)].record(at: now)
        failuresByNetwork[address.network, default: SlidingWindowCounter(window: config.wrongPinWindow)].record(at: now)
    }

    // MARK: Knocks

    static func knockingMessage(_ room: RoomID, timeout: Duration) -> String {
        "room \(room) is locked after too many wrong pins: waiting up to \(Int(timeout.milliseconds / 1000)) s for someone in the call to let you in"
    }

    static func notAdmittedMessage(_ room: RoomID) -> String {
        "nobody in room \(room) let you in: ask someone in the call to admit you when you knock, or try again later"
    }

    /// Everything decided here before the pin is looked at is the same for right and wrong pins.
    private func knock(on roomID: RoomID, pin: Pin, name: String, from id: ConnectionID, now: Instant) {
        guard var room = rooms[roomID], let address = connections[id]?.address else { return }
        if knocksByClient[address.client, default: 0] >= config.knocksPerClient
            || knocksByNetwork[address.network, default: 0] >= config.knocksPerNetwork
            || room.waiting.count >= config.waitersPerRoom
        {
            return refuseJoin(id, .rateLimited, "too many people are waiting to be let into room \(roomID): try again in a minute")
        }
        guard !room.presentPublishers.isEmpty else {
            // Says only that the room is locked and has no publisher present, whatever the pin.
            return refuseJoin(id, .notAdmitted,
                              "room \(roomID) is locked after too many wrong pins, and nobody who could let you in is in the call: try again later")
        }
        let shown = room.waiting.count { $0.knock != nil }
        let role: Role? = shown >= config.knocksPerRoom ? nil : pin == room.pin ? .publisher : pin == room.listenPin ? .listener : nil
        var waiter = Waiter(connection: id, client: address, name: name, role: role, knock: nil, deadline: now + config.knockTimeout)
        if let role {
            let knock = KnockID("k\(room.nextKnockNumber)")!
            room.nextKnockNumber += 1
            waiter.knock = knock
            for publisher in room.presentPublishers { send(.knock(.init(id: knock, name: name, role: role)), to: publisher) }
            log("\(knock) from \(address) on \(id) knocks on locked room \(roomID)")
        } else {
            log("wrong pin from \(address) on \(id) waits on locked room \(roomID)")
        }
        room.waiting.append(waiter)
        rooms[roomID] = room
        connections[id]?.knocking = roomID
        knocksByClient[address.client, default: 0] += 1
        knocksByNetwork[address.network, default: 0] += 1
        send(.knocking(message: Self.knockingMessage(roomID, timeout: config.knockTimeout)), to: id)
    }

    /// A publisher's `admit` or `deny`. An admitted knock is seated at once. A denied one is told
    /// at its deadline, like a wrong pin, so a guesser cannot learn from a quick "no" that its pin
    /// was right (the publishers hear `knock-ended denied` at once).
    func answer(_ knock: KnockID, admit: Bool, from id: ConnectionID, now: Instant) {
        guard let joined = connections[id]?.joined, var room = rooms[joined.room] else {
            return refuse(id, .notJoined, "join a room before answering a knock")
        }
        guard room.members.contains(where: { $0.participant.id == joined.id && $0.participant.role == .publisher }) else {
            return refuse(id, .badRequest, "only publishers can let people in")
        }
        guard let index = room.waiting.firstIndex(where: { $0.knock == knock && !$0.denied }), let role = room.waiting[index].role else {
            return refuse(id, .badRequest, "no knock \(knock) is waiting in room \(joined.room): it was answered, withdrawn or timed out")
        }
        if !admit {
            room.waiting[index].denied = true
            rooms[joined.room] = room
            for publisher in room.presentPublishers { send(.knockEnded(knock, outcome: .denied), to: publisher) }
            log("\(knock) on room \(joined.room) denied by \(joined.id)")
            return
        }
        guard room.members.count < ProtocolLimits.maxParticipants else {
            return refuse(id, .roomFull, "room \(joined.room) already has \(ProtocolLimits.maxParticipants) participants: \(knock) keeps waiting")
        }
        let waiter = removeWaiter(at: index, from: joined.room)
        connections[waiter.connection]?.knocking = nil
        for publisher in room.presentPublishers { send(.knockEnded(knock, outcome: .admitted), to: publisher) }
        log("\(knock) on room \(joined.room) admitted by \(joined.id)")
        seat(waiter.name, role: role, on: waiter.connection, in: joined.room, now: now)
    }

    /// The knocking connection closed before an answer.
    func withdraw(_ id: ConnectionID, from roomID: RoomID) {
        guard let index = rooms[roomID]?.waiting.firstIndex(where: { $0.connection == id }) else { return }
        let waiter = removeWaiter(at: index, from: roomID)
        if let knock = waiter.knock, !waiter.denied, let room = rooms[roomID] {
            for publisher in room.presentPublishers { send(.knockEnded(knock, outcome: .withdrawn), to: publisher) }
        }
    }

    /// Ends the waits whose deadline passed: the same `not-admitted` for an unanswered knock, a
    /// denied one and a wrong pin.
    func endWaits(in roomID: RoomID, now: Instant) {
        while let index = rooms[roomID]?.waiting.firstIndex(where: { $0.deadline <= now }) {
            let waiter = removeWaiter(at: index, from: roomID)
            connections[waiter.connection]?.knocking = nil
            if let knock = waiter.knock, !waiter.denied, let room = rooms[roomID] {
                for publisher in room.presentPublishers { send(.knockEnded(knock, outcome: .expired), to: publisher) }
            }
            refuseJoin(waiter.connection, .notAdmitted, Self.notAdmittedMessage(roomID))
        }
    }

    private func removeWaiter(at index: Int, from roomID: RoomID) -> Waiter {
        let waiter = rooms[roomID]!.waiting.remove(at: index)
        Self.decrement(&knocksByClient, waiter.client.client)
        Self.decrement(&knocksByNetwork, waiter.client.network)
        return waiter
    }
}
