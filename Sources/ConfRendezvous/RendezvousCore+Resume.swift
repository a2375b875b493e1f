import ConfCore
import ConfWire

/// Taking a seat back with a resume token (docs/PROTOCOL.md, "resume"; docs/SECURITY.md, "Resume tokens").
///
/// - Same process, seat away (or still held by a connection the client gave up on): the seat is
///   taken back with the same id; the others are told nothing.
/// - Same process, seat gone (left, or away past the grace) or room gone: `resume-refused`.
/// - Token of an earlier process with the same secret (a restart): the room is recreated from the
///   token, pins derived from the secret, and each seat is taken back as its token arrives. New
///   participants of a recreated room get ids from a random base far above the old ones, so an
///   id in a token not yet presented is never handed to someone else.
extension RendezvousCore {
    func resume(_ text: String, on id: ConnectionID, now: Instant) {
        guard let connection = connections[id] else { return }
        if connection.joined != nil || connection.knocking != nil {
            return refuse(id, .alreadyJoined, "this connection already joined a room: open another connection to resume")
        }
        let address = connection.address
        if let why = attemptsExhausted(address, now: now) { return refuseJoin(id, .rateLimited, why) }
        guard let key else {
            return refuseJoin(id, .resumeRefused, "this rendezvous does not keep seats: join again with the pin")
        }
        guard let token = ResumeToken(verifying: text, key: key), token.expires > wallClock.unixSeconds(at: now) else {
            recordFailedAttempt(address, now: now)
            log("resume refused on \(id) from \(address): bad or expired token")
            return refuseJoin(id, .resumeRefused,
                              "the resume token is not valid (damaged, from another rendezvous, or expired): join again with the pin")
        }
        if routedElsewhere(token.room, id) { return }
        let seat = token.participant
        let foreign = token.instance != instance
        guard var room = rooms[token.room] else {
            guard foreign else {
                return refuseJoin(id, .resumeRefused, "room \(token.room) is over: it was empty too long; join a new room")
            }
            return recreate(from: token, on: id, now: now)
        }
        guard let index = room.members.firstIndex(where: { $0.participant.id == seat.id }) else {
            if foreign && room.recreated {
                guard room.members.count < ProtocolLimits.maxParticipants else {
                    return refuseJoin(id, .resumeRefused, "room \(token.room) is full now: your seat was taken")
                }
                log("\(seat.id) took its seat back in recreated room \(token.room) on \(id) from \(address)")
                counters.resumes += 1
                return addMember(seat, on: id, to: token.room, now: now)
            }
            return refuseJoin(id, .resumeRefused,
                              "your seat in room \(token.room) was given up (you left, or were away longer than \(Int(config.awayGrace.milliseconds / 1000)) s): join again with the pin")
        }
        guard !foreign, room.members[index].generation == token.generation else {
            return refuseJoin(id, .resumeRefused, "this seat was already taken back with a newer token: join again with the pin")
        }
        if let old = room.members[index].connection {
            // The client gave up on a connection the server still thinks is open: the new one wins.
            connections[old]?.joined = nil
            close(old, code: CloseCode.goingAway, reason: "resumed on another connection")
        }
        room.members[index].connection = id
        room.members[index].awaySince = nil
        room.members[index].awayBriefly = false
        room.members[index].generation += 1
        rooms[token.room] = room
        connections[id]?.joined = (token.room, seat.id)
        sendJoined(seat.id, in: token.room, to: id, now: now)
        log("\(seat.id) took its seat back in room \(token.room) on \(id) from \(address)")
        counters.resumes += 1
    }

    private func recreate(from token: ResumeToken, on id: ConnectionID, now: Instant) {
        guard let key, let address = connections[id]?.address else { return }
        guard takeRoomPlace() else {
            return refuseJoin(id, .resumeRefused, "this rendezvous holds as many rooms as it may: join a new room later")
        }
        let pins = key.pins(for: token.room)
        var room = Room(name: token.roomName, resolution: token.resolution, pin: pins.pin, listenPin: pins.listenPin, creator: address,
                        wrongGuesses: SlidingWindowCounter(window: config.roomGuessWindow))
        room.recreated = true
        room.nextParticipantNumber = Int.random(in: 100_000...899_999, using: &random) * 1000
        addRoom(token.room, room)
        log("room \(token.room) recreated from a resume token by \(address)")
        counters.resumes += 1
        addMember(token.participant, on: id, to: token.room, now: now)
    }
}
