import ConfCore
import ConfWire
import Testing

@Suite struct MessageTests {
    @Test func clientMessagesRoundTrip() throws {
        let messages: [ClientMessage] = [
            .join(room: RoomID("1234-5678")!, pin: Pin("000001")!, name: "Zoë"),
            .signal(to: ParticipantID("p2"), payload: .object(["sdp": "v=0\r\n", "n": [1, 2]])),
            .leave, .ping, .resume(token: "v1.abc-DEF_123"), .admit(KnockID("k1")!), .deny(KnockID("k12")!),
        ]
        for message in messages { #expect(try ClientMessage(text: message.json.serialized) == message) }
    }

    @Test func serverMessagesRoundTrip() throws {
        let joined = ServerMessage.Joined(
            you: ParticipantID("p3"), role: .listener, room: RoomID("1234-5678")!, roomName: "standup", resolution: .p720,
            peers: [Participant(id: ParticipantID("p1"), name: "ann", role: .publisher)],
            iceServers: [IceServer(urls: ["stun:192.0.2.1:3478"]), IceServer(urls: ["turn:192.0.2.1:3478"], username: "u", credential: "p")],
            resumeToken: "v1.token")
        let messages: [ServerMessage] = [
            .joined(joined), .peerJoined(joined.peers[0]), .peerLeft(ParticipantID("p1")),
            .signal(from: ParticipantID("p1"), payload: ["x"]), .error(code: .roomFull, message: "full"), .pong,
            .roomClosed(reason: "host-left"), .knocking(message: "wait"),
            .knock(.init(id: KnockID("k3")!, name: "bob", role: .publisher)), .knockEnded(KnockID("k3")!, outcome: .denied),
        ]
        for message in messages { #expect(try ServerMessage(text: message.json.serialized) == message) }
    }

    @Test(arguments: [
        (#"not json"#, "invalid JSON"),
        (#"[1,2]"#, "JSON object"),
        (#"{"no":"type"}"#, #"missing field "type""#),
        (#"{"type":7}"#, #"field "type" must be a string, not a number"#),
        (#"{"type":"dance"}"#, #"unknown message type "dance""#),
        (#"{"type":"join","room":"1234-5678","pin":123456,"name":"a"}"#, #"field "pin" must be a string"#),
        (#"{"type":"join","room":"12345678","pin":"12345","name":"a"}"#, "six digits"),
        (#"{"type":"join","room":"nope","pin":"123456","name":"a"}"#, "eight digits"),
        (#"{"type":"join","room":"1234-5678","pin":"123456","name":""}"#, "too short"),
        (#"{"type":"join","room":"1234-5678","pin":"123456"}"#, #"missing field "name""#),
        (#"{"type":"signal","to":"p2"}"#, #"missing field "payload""#),
        (#"{"type":"signal","to":["p2"],"payload":1}"#, #"field "to" must be a string"#),
        (#"{"type":"signal","to":"p2\u001b[2J","payload":1}"#, "participant id"),
        (#"{"type":"resume","token":""}"#, "resume token"),
        (#"{"type":"resume","token":"a b"}"#, "resume token"),
        (#"{"type":"admit","knock":"p1"}"#, "knock id"),
        (#"{"type":"deny"}"#, #"missing field "knock""#),
    ])
    func hostileClientMessagesAreRefusedWithReasons(_ text: String, _ reason: String) {
        do {
            _ = try ClientMessage(text: text)
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.description.contains(reason), "\(error)")
        }
    }

    /// A rendezvous is not trusted either: what it says about others is held to the server's own rules,
    /// so no escape sequence or bidi override arrives in a name or an id.
    @Test(arguments: [
        (#"{"type":"peer-joined","peer":"p2","name":"\u001b]0;pwned\u0007","role":"publisher"}"#, "control characters"),
        (#"{"type":"peer-joined","peer":"p2","name":"ann\u202egnp.exe","role":"publisher"}"#, "control characters"),
        (#"{"type":"peer-joined","peer":"p2","name":"","role":"publisher"}"#, "too short"),
        (#"{"type":"peer-joined","peer":"\u001b[2J","name":"ann","role":"publisher"}"#, "participant id"),
        (#"{"type":"peer-left","peer":"p0"}"#, "participant id"),
        (#"{"type":"signal","from":"p1\r","payload":1}"#, "participant id"),
        (#"{"type":"joined","you":"p1","role":"publisher","room":"1234-5678","name":"\u001b[31mred","resolution":"480p","peers":[],"ice_servers":[]}"#, "control characters"),
        (#"{"type":"joined","you":"p1","role":"publisher","room":"1234-5678","name":"room","resolution":"480p","peers":[{"id":"p2","name":"a\nb","role":"publisher"}],"ice_servers":[]}"#, "control characters"),
        (#"{"type":"knock","knock":"k1","name":"\u0008\u0008","role":"publisher"}"#, "control characters"),
        (#"{"type":"knock-ended","knock":"k1","outcome":"maybe"}"#, "must be one of"),
    ])
    func hostileServerMessagesAreRefused(_ text: String, _ reason: String) {
        do {
            _ = try ServerMessage(text: text)
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.description.contains(reason), "\(error)")
        }
    }

    @Test func oversizedInputIsRefusedBeforeParsing() {
        let huge = #"{"type":"ping","x":""# + String(repeating: "a", count: ProtocolLimits.maxMessageBytes) + #""}"#
        #expect(throws: ProtocolError.tooLarge(what: "the message", limit: ProtocolLimits.maxMessageBytes)) { try ClientMessage(text: huge) }
        let bigPayload = #"{"type":"signal","to":"p2","payload":""# + String(repeating: "a", count: ProtocolLimits.maxSignalPayloadBytes) + #""}"#
        #expect(throws: ProtocolError.tooLarge(what: "the signal payload", limit: ProtocolLimits.maxSignalPayloadBytes)) {
            try ClientMessage(text: bigPayload)
        }
    }

    /// A payload is measured as it would be relayed (serialized), whatever its text: raw DELs
    /// are legal JSON and each is written back as a 6-byte escape.
    @Test func aPayloadThatGrowsWhenWrittenIsMeasuredWritten() throws {
        func signal(dels: Int) -> String { #"{"type":"signal","to":"p2","payload":""# + String(repeating: "\u{7F}", count: dels) + #""}"# }
        #expect(throws: ProtocolError.tooLarge(what: "the signal payload", limit: ProtocolLimits.maxSignalPayloadBytes)) {
            try ClientMessage(text: signal(dels: 6_000))  // 6,042 bytes of text, 36,002 written
        }
        guard case .signal = try ClientMessage(text: signal(dels: 5_400)) else { Issue.record("not a signal"); return }
    }

    /// What lets a short signal's payload go unmeasured: written out, no value grows more than
    /// `serializedGrowth` times its text (random values from the tokens that grow most).
    @Test func noValueGrowsMoreThanTheBoundWhenWritten() throws {
        var random = SeededRandom(seed: 5)
        let tokens = ["9e15", "-9e15", "1e-4", "1E15", "0.1", "\"\u{7F}\u{7F}\"", "\"\u{85}\"", "\"\u{E0041}\u{200E}\"", "\"\\n\"", "true", "null", "[]", "{}"]
        for _ in 0..<2_000 {
            let items = (0..<(1 + random.next() % 8)).map { _ in tokens[Int(random.next() % UInt64(tokens.count))] }
            let text = random.next() % 2 == 0 ? "[" + items.joined(separator: ",") + "]" : items[0]
            let value = try JSONValue.parse(text)
            #expect(value.serialized.utf8.count <= ClientMessage.serializedGrowth * text.utf8.count, "\(text)")
        }
    }

    @Test func createRoomRequestValidatesNameAndResolution() throws {
        #expect(try CreateRoomRequest(text: #"{"name":"standup"}"#).resolution == .p480)
        #expect(try CreateRoomRequest(text: #"{"name":"standup","resolution":"240p"}"#).resolution == .p240)
        #expect(throws: ProtocolError.self) { try CreateRoomRequest(text: #"{"name":"ab"}"#) }
        #expect(throws: ProtocolError.self) { try CreateRoomRequest(text: #"{"name":"standup","resolution":"4k"}"#) }
        #expect(throws: ProtocolError.self) { try CreateRoomRequest(text: #"{"name":5}"#) }
    }
}
