import ConfCore
import ConfRendezvous
import ConfWire
import Testing

/// Seats kept "away" after a dropped connection, and taken back with a resume token
/// (docs/PROTOCOL.md, "resume"; docs/SECURITY.md, "Resume tokens").
@Suite struct RendezvousResumeTests {
    private func resume(_ h: RendezvousHarness, _ token: String?, from address: String = "192.0.2.9") -> (ConnectionID, ServerMessage.Joined?) {
        let id = h.open(from: address)
        h.send(id, text: ClientMessage.resume(token: token ?? "none").json.serialized)
        for message in h.messages(id) { if case .joined(let joined) = message { return (id, joined) } }
        return (id, nil)
    }

    @Test func aDroppedSeatIsTakenBackWithinTheGraceAndTheOthersHearNothing() {
        let h = RendezvousHarness(secret: 7)
        let room = h.createRoom()
        let (a, ann) = h.join(room, name: "ann")
        let (b, bob) = h.join(room, name: "bob")
        #expect(ann?.resumeToken != nil && bob?.resumeToken != nil)
        _ = h.take(a)
        h.disconnect(b)
        h.send(a, .signal(to: ParticipantID("p2"), payload: 1))  // to an away seat: dropped, not an error
        #expect(h.take(a).isEmpty)
        h.tick(after: .seconds(20))
        let (b2, back) = resume(h, bob?.resumeToken)
        #expect(back?.you == ParticipantID("p2") && back?.role == .publisher && back?.peers.map(\.name) == ["ann"])
        #expect(back?.resumeToken != nil && back?.resumeToken != bob?.resumeToken)
        #expect(h.take(a).isEmpty)
        h.send(a, .signal(to: ParticipantID("p2"), payload: 2))
        #expect(h.take(b2).last == .signal(from: ParticipantID("p1"), payload: 2))
        let (_, stale) = resume(h, bob?.resumeToken)  // the first token was replaced
        #expect(stale == nil)
    }

    @Test func afterTheGraceTheOthersAreToldAndTheTokenIsRefused() {
        let h = RendezvousHarness(secret: 7)
        let room = h.createRoom()
        let (a, _) = h.join(room, name: "ann")
        let (b, bob) = h.join(room, name: "bob")
        _ = h.take(a)
        h.disconnect(b)
        h.tick(after: .seconds(29))
        #expect(h.take(a).isEmpty)
        h.tick(after: .seconds(2))
        #expect(h.take(a) == [.peerLeft(ParticipantID("p2"))])
        let (id, joined) = resume(h, bob?.resumeToken)
        #expect(joined == nil && h.lastError(id) == .resumeRefused && h.closed[id] != nil)
    }

    /// A page that closes or reloads says `away`: its seat waits a second, not thirty. A reload
    /// takes it back within that; a closed tab's is given up at the next tick after it.
    @Test func aSeatSaidAwayIsKeptBriefly() {
        let h = RendezvousHarness(secret: 7)
        let room = h.createRoom()
        let (a, _) = h.join(room, name: "ann")
        let (b, bob) = h.join(room, name: "bob")
        _ = h.take(a)
        h.send(b, .away)
        #expect(h.closed[b] != nil && h.take(a).isEmpty)
        h.tick(after: .milliseconds(500))
        let (b2, back) = resume(h, bob?.resumeToken)
        #expect(back?.you == ParticipantID("p2") && h.take(a).isEmpty, "a reload keeps the seat")
        h.send(b2, .away)
        h.tick(after: .milliseconds(900))
        #expect(h.take(a).isEmpty)
        h.tick(after: .milliseconds(200))
        #expect(h.take(a) == [.peerLeft(ParticipantID("p2"))], "a closed tab's seat goes within two seconds")
        // Resumed, the seat is kept the usual grace again on a plain drop.
        let (c, _) = h.join(room, name: "cy")
        _ = h.take(a)
        h.disconnect(c)
        h.tick(after: .seconds(5))
        #expect(h.take(a).isEmpty)
    }

    @Test func aSeatLeftOnPurposeIsNotKept() {
        let h = RendezvousHarness(secret: 7)
        let room = h.createRoom()
        let (a, _) = h.join(room, name: "ann")
        let (b, bob) = h.join(room, name: "bob")
        _ = h.take(a)
        h.send(b, .leave)
        #expect(h.take(a) == [.peerLeft(ParticipantID("p2"))])
        let (id, _) = resume(h, bob?.resumeToken)
        #expect(h.lastError(id) == .resumeRefused)
    }

    @Test func forgedDamagedAndExpiredTokensAreRefused() {
        let h = RendezvousHarness(secret: 7)
        let room = h.createRoom()
        _ = h.join(room, name: "ann")
        let (b, bob) = h.join(room, name: "bob")
        h.disconnect(b)
        let token = bob!.resumeToken!
        let parts = token.split(separator: ".").map(String.init)
        // Claim to be p1 (a publisher) with bob's MAC, flip one character, or bring garbage.
        let forgedPayload = String(decoding: Array(parts[0].utf8).map { $0 == UInt8(ascii: "A") ? UInt8(ascii: "B") : $0 }, as: UTF8.self)
        for bad in [forgedPayload + "." + parts[1], parts[0] + "." + String(parts[1].reversed()), "x.y", "garbage"] {
            let (id, joined) = resume(h, bad)
            #expect(joined == nil && h.lastError(id) == .resumeRefused, "\(bad.prefix(20))")
        }
        let other = RendezvousHarness(secret: 8)  // another rendezvous's secret
        let (id, _) = resume(other, token)
        #expect(other.lastError(id) == .resumeRefused)

        var config = RendezvousConfig()
        config.awayGrace = .seconds(24 * 3600)
        let patient = RendezvousHarness(config: config, secret: 7)
        let room2 = patient.createRoom()
        let (c, cid) = patient.join(room2, name: "cid")
        patient.disconnect(c)
        patient.tick(after: config.resumeTokenLifetime + .seconds(1))
        let (late, _) = resume(patient, cid?.resumeToken)
        #expect(patient.lastError(late) == .resumeRefused)
    }

    @Test func resumingWhileTheOldConnectionIsStillOpenTakesTheSeatOver() {
        let h = RendezvousHarness(secret: 7)
        let room = h.createRoom()
        let (a, _) = h.join(room, name: "ann")
        let (old, bob) = h.join(room, name: "bob")
        _ = h.take(a)
        let (new, back) = resume(h, bob?.resumeToken)
        #expect(back?.you == ParticipantID("p2") && h.closed[old] != nil)
        h.disconnect(old)  // its close arrives later and changes nothing
        #expect(h.take(a).isEmpty)
        h.send(a, .signal(to: ParticipantID("p2"), payload: 3))
        #expect(h.take(new).last == .signal(from: ParticipantID("p1"), payload: 3))
    }

    /// A standing rendezvous killed and started again with the same secret.
    @Test func aRestartWithTheSameSecretRecreatesTheRoomAndItsSeats() {
        let before = RendezvousHarness(seed: 1, secret: 7)
        let room = before.createRoom("retro", .p720)
        let (_, ann) = before.join(room, name: "ann")
        let (_, lis) = before.join(room, pin: room.listenPin, name: "lis")

        let after = RendezvousHarness(seed: 2, secret: 7, clockStart: Instant(nanoseconds: 5_000_000_000),
                                      unixStart: RendezvousHarness.unixStart + 60)
        let (l, lisBack) = resume(after, lis?.resumeToken)
        #expect(lisBack?.you == ParticipantID("p2") && lisBack?.role == .listener && lisBack?.peers.isEmpty == true)
        #expect(lisBack?.roomName == "retro" && lisBack?.resolution == .p720)
        _ = after.take(l)
        let (_, annBack) = resume(after, ann?.resumeToken)
        #expect(annBack?.you == ParticipantID("p1") && annBack?.peers.map(\.name) == ["lis"])
        #expect(after.take(l) == [.peerJoined(Participant(id: ParticipantID("p1"), name: "ann", role: .publisher))])
        // The pins are the same (derived from the secret), and a newcomer never gets an id a token may still name.
        let (_, newcomer) = after.join(room, name: "new")
        #expect(newcomer != nil && (newcomer?.you.number ?? 0) >= 100_000_000)
        let (again, _) = resume(after, ann?.resumeToken)  // a seat already taken back
        #expect(after.lastError(again) == .resumeRefused)

        let stranger = RendezvousHarness(seed: 3, secret: 9)
        let (s, _) = resume(stranger, ann?.resumeToken)
        #expect(stranger.lastError(s) == .resumeRefused && stranger.core.roomCount == 0)
    }

    @Test func aRoomThatExpiredOnThisServerIsNotRecreated() {
        var config = RendezvousConfig()
        config.roomIdleTimeout = .seconds(60)
        let h = RendezvousHarness(config: config, secret: 7)
        let room = h.createRoom()
        let (a, ann) = h.join(room, name: "ann")
        h.disconnect(a)
        h.tick(after: .seconds(31))
        h.tick(after: .seconds(61))
        #expect(h.core.roomCount == 0)
        let (id, _) = resume(h, ann?.resumeToken)
        #expect(h.lastError(id) == .resumeRefused && h.core.roomCount == 0)
    }

    @Test func tokensCarryNoPin() {
        let h = RendezvousHarness(secret: 7)
        let room = h.createRoom()
        let (_, ann) = h.join(room, name: "ann")
        let payload = ann!.resumeToken!.split(separator: ".")[0]
        // Decode by hand: base64url of the fields.
        let decoded = Self.base64URLDecode(String(payload))
        #expect(decoded.contains("ann") && !decoded.contains(room.pin.digits) && !decoded.contains(room.listenPin.digits))
        #expect(ann!.resumeToken!.utf8.count <= ProtocolLimits.maxResumeTokenBytes)
        let (_, long) = h.join(room, name: String(repeating: "😀", count: 64))
        #expect(long!.resumeToken!.utf8.count <= ProtocolLimits.maxResumeTokenBytes)
    }

    static func base64URLDecode(_ text: String) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        var bits = 0, count = 0, out: [UInt8] = []
        for c in text {
            bits = bits << 6 | alphabet.firstIndex(of: c)!
            count += 6
            if count >= 8 { count -= 8; out.append(UInt8(bits >> count & 0xff)) }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
