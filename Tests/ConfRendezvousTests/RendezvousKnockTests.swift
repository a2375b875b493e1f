import ConfCore
import ConfRendezvous
import ConfWire
import Testing

/// Wrong pins spend a room's budget; past it every join knocks (docs/SECURITY.md, "Guessing a pin").
@Suite struct RendezvousKnockTests {
    /// A pin that is neither of the room's, the n-th such.
    static func wrongPin(_ room: RoomCreated, _ n: Int = 0) -> Pin {
        var value = n
        while true {
            let digits = String(value % 1_000_000)
            let pin = Pin(String(repeating: "0", count: 6 - digits.count) + digits)!
            if pin != room.pin && pin != room.listenPin { return pin }
            value += 1
        }
    }

    /// One address per attempt, each in its own /24: the per-address limits never apply.
    static func stranger(_ n: Int) -> String { "10.\((n >> 8) & 255).\(n & 255).7" }

    /// Spends the room's budget of answered wrong pins.
    static func spendBudget(_ h: RendezvousHarness, _ room: RoomCreated) {
        for i in 0..<h.core.config.roomGuessBudget {
            let (id, joined) = h.join(room, pin: wrongPin(room, i), from: stranger(60_000 + i))
            #expect(joined == nil && h.lastError(id) == .wrongPin)
        }
    }

    @Test func pastTheBudgetTheRightPinKnocksAndAPublisherAdmitsIt() {
        let h = RendezvousHarness()
        let room = h.createRoom()
        let (host, _) = h.join(room, name: "ann")
        Self.spendBudget(h, room)
        _ = h.take(host)
        let (wrong, _) = h.join(room, pin: Self.wrongPin(room, 99), name: "eve", from: Self.stranger(1))
        let (right, joined) = h.join(room, name: "lee", from: Self.stranger(2))
        #expect(joined == nil)
        guard case .knocking? = h.messages(wrong).last, case .knocking? = h.messages(right).last else {
            Issue.record("expected knocking, got \(h.messages(wrong)) and \(h.messages(right))")
            return
        }
        let knock = KnockID("k1")!
        #expect(h.take(host) == [.knock(.init(id: knock, name: "lee", role: .publisher))])  // nothing for the wrong pin
        h.tick(after: .seconds(20))  // past the lobby timeout: a knock is not a lobby
        #expect(h.closed[right] == nil)
        h.send(host, .admit(knock))
        guard case .joined(let lee)? = h.take(right).last else { Issue.record("lee was not seated"); return }
        #expect(lee.you == ParticipantID("p2") && lee.peers.map(\.name) == ["ann"])
        #expect(h.take(host) == [.knockEnded(knock, outcome: .admitted),
                                 .peerJoined(Participant(id: ParticipantID("p2"), name: "lee", role: .publisher))])
        h.send(host, .admit(knock))  // answered already
        #expect(h.lastError(host) == .badRequest)
        h.tick(after: .seconds(40))
        #expect(h.lastError(wrong) == .notAdmitted && h.closed[wrong] != nil)
        let pins = [room.pin.digits, room.listenPin.digits]
        #expect(!h.logs.contains { line in pins.contains { line.contains($0) } })
    }

    /// Same messages, same close, same moment: a wrong pin, an unanswered knock and a denied knock.
    @Test func aWrongPinInALockedRoomIsIndistinguishableFromAKnockNobodyLetIn() {
        let h = RendezvousHarness()
        let room = h.createRoom()
        let (host, _) = h.join(room, name: "ann")
        let (other, _) = h.join(room, name: "bob")
        Self.spendBudget(h, room)
        let (wrong, _) = h.join(room, pin: Self.wrongPin(room, 50), name: "x", from: Self.stranger(1))
        let (unanswered, _) = h.join(room, name: "x", from: Self.stranger(2))
        let (denied, _) = h.join(room, pin: room.listenPin, name: "x", from: Self.stranger(3))
        _ = h.take(other)
        h.send(host, .deny(KnockID("k2")!))
        #expect(h.take(other) == [.knockEnded(KnockID("k2")!, outcome: .denied)])  // every publisher hears it
        var endedAt: [ConnectionID: Instant] = [:]
        for _ in 0..<70 {
            h.tick(after: .seconds(1))
            for id in [wrong, unanswered, denied] where endedAt[id] == nil && h.lastError(id) != nil { endedAt[id] = h.clock.now() }
        }
        #expect(h.messages(wrong).count == 2 && h.messages(wrong).last.map { if case .error(.notAdmitted, _) = $0 { true } else { false } } == true)
        #expect(h.messages(unanswered) == h.messages(wrong) && h.messages(denied) == h.messages(wrong))
        #expect(Set(endedAt.values).count == 1 && endedAt.count == 3)
        #expect(h.closed[wrong]! == h.closed[unanswered]! && h.closed[wrong]! == h.closed[denied]!)
        #expect(h.take(host).contains(.knockEnded(KnockID("k1")!, outcome: .expired)))
    }

    @Test func anAttackerAt20GuessesASecondGetsNoAnswerPastTheBudgetWhileTheRightPinGetsIn() {
        let h = RendezvousHarness()
        let room = h.createRoom()
        let (host, _) = h.join(room, name: "ann")
        var wrongPinAnswers = 0, seated = 0, unanswered = 0
        var attackers: [ConnectionID] = []
        var legit: ConnectionID?
        for guess in 0..<(20 * 600) {  // ten minutes
            let pin = guess == 3_000 ? room.pin : Self.wrongPin(room, guess)  // even a lucky guess learns nothing
            let (id, joined) = h.join(room, pin: pin, name: "x", from: Self.stranger(guess))
            attackers.append(id)
            if joined != nil { seated += 1 }
            if h.lastError(id) == .wrongPin { wrongPinAnswers += 1 }
            h.clock.advance(by: .milliseconds(50))
            if guess % 20 == 19 {
                h.send(host, .ping)  // the host's client pings; the attack does not silence it
                h.tick(after: .zero)
                h.reportCloses()
            }
            if guess == 6_000 {
                let (id, _) = h.join(room, name: "lee", from: "192.0.2.77")
                legit = id
                let knocks = h.take(host).compactMap { if case .knock(let k) = $0, k.name == "lee" { k.id } else { nil } }
                #expect(knocks.count == 1)
                if let knock = knocks.first { h.send(host, .admit(knock)) }
                if case .joined? = h.messages(id).last {} else { Issue.record("the right pin did not get in: \(h.messages(id))") }
            }
        }
        h.tick(after: .seconds(61))
        for id in attackers {
            let messages = h.messages(id)
            if case .error(.wrongPin, _)? = messages.last { continue }
            if case .knocking? = messages.first, case .error(.notAdmitted, _)? = messages.last, messages.count == 2 { unanswered += 1; continue }
            Issue.record("an attacker got \(messages)")
            break
        }
        #expect(wrongPinAnswers == h.core.config.roomGuessBudget && seated == 0)
        #expect(unanswered == attackers.count - wrongPinAnswers)
        #expect(legit != nil)
    }

    @Test func aLockedRoomWithNoPublisherSaysSoToEveryPinAlike() {
        let h = RendezvousHarness()
        let room = h.createRoom()
        _ = h.join(room, pin: room.listenPin, name: "lis")  // a listener cannot admit
        Self.spendBudget(h, room)
        let (right, _) = h.join(room, from: Self.stranger(1))
        let (wrong, _) = h.join(room, pin: Self.wrongPin(room, 77), from: Self.stranger(2))
        #expect(h.lastError(right) == .notAdmitted && h.closed[right] != nil)
        #expect(h.messages(right) == h.messages(wrong))
    }

    @Test func knocksEndWhenWithdrawnAndOnlyPublishersAnswer() {
        let h = RendezvousHarness()
        let room = h.createRoom()
        let (host, _) = h.join(room, name: "ann")
        let (listener, _) = h.join(room, pin: room.listenPin, name: "lis")
        Self.spendBudget(h, room)
        _ = h.take(listener)
        let (knocker, _) = h.join(room, name: "lee", from: Self.stranger(1))
        #expect(h.take(listener).isEmpty)  // knocks go to publishers only
        h.send(listener, .admit(KnockID("k1")!))
        #expect(h.lastError(listener) == .badRequest)
        _ = h.take(host)
        h.disconnect(knocker)
        #expect(h.take(host) == [.knockEnded(KnockID("k1")!, outcome: .withdrawn)])
        h.send(host, .admit(KnockID("k1")!))
        #expect(h.lastError(host) == .badRequest)
    }

    @Test func aClientMayHoldOnlyAFewWaitingJoins() {
        let h = RendezvousHarness()
        let room = h.createRoom()
        _ = h.join(room, name: "ann")
        Self.spendBudget(h, room)
        for i in 0..<h.core.config.knocksPerClient {
            let (id, _) = h.join(room, pin: Self.wrongPin(room, i), from: "203.0.113.5")
            if case .knocking? = h.messages(id).last {} else { Issue.record("\(h.messages(id))") }
        }
        let (extra, _) = h.join(room, from: "203.0.113.5")  // the right pin too: decided before the pin is read
        #expect(h.lastError(extra) == .rateLimited)
    }

    @Test func theLockLiftsWhenTheBudgetWindowClears() {
        let h = RendezvousHarness()
        let room = h.createRoom()
        let (host, _) = h.join(room, name: "ann")
        Self.spendBudget(h, room)
        h.clock.advance(by: h.core.config.roomGuessWindow - .seconds(1))
        h.send(host, .ping)
        let (still, _) = h.join(room, from: Self.stranger(1))
        if case .knocking? = h.messages(still).last {} else { Issue.record("\(h.messages(still))") }
        h.tick(after: .seconds(2))
        let (bob, joined) = h.join(room, name: "bob", from: Self.stranger(2))
        #expect(joined != nil, "\(h.messages(bob))")
    }

    /// Limits key IPv6 clients by their /64: eleven addresses of one /64 are one client.
    @Test func wrongPinsFromOneIPv6SlashSixtyFourCountAsOneClient() {
        let h = RendezvousHarness()
        let rooms = (0..<11).map { _ in h.createRoom() }
        for (i, room) in rooms.prefix(10).enumerated() {
            let (id, _) = h.join(room, pin: Self.wrongPin(room), from: "2001:db8:1:2::\(i + 1)")
            #expect(h.lastError(id) == .wrongPin)
        }
        let (eleventh, joined) = h.join(rooms[10], from: "2001:db8:1:2:aaaa::b")
        #expect(joined == nil && h.lastError(eleventh) == .rateLimited)
        #expect(h.join(rooms[10], from: "2001:db8:1:3::1").1 != nil)  // the next /64 is another client
    }

    @Test func wrongPinsFromOneNetworkAreLimitedToo() {
        let h = RendezvousHarness()
        let rooms = (0..<4).map { _ in h.createRoom() }
        var refused = 0
        for i in 0..<h.core.config.wrongPinsPerNetwork + 1 {
            let room = rooms[i % rooms.count]
            let (id, _) = h.join(room, pin: Self.wrongPin(room, i), from: "198.51.100.\(i + 1)")  // one /24, many clients
            if h.lastError(id) == .rateLimited { refused += 1 }
        }
        #expect(refused == 1)
    }
}
