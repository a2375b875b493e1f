import ConfWire
import Testing

@Suite struct IdentifierTests {
    /// Participant ids order as they were given, p2 before p10; ids of another form after.
    @Test func participantIDsOrderAsTheyJoined() {
        let ids = ["p10", "x", "p2", "p100", "p1", "p11", "p9", "a"].map(ParticipantID.init)
        #expect(ids.sorted().map(\.rawValue) == ["p1", "p2", "p9", "p10", "p11", "p100", "a", "x"])
        #expect(ParticipantID("p9") < ParticipantID("p10") && !(ParticipantID("p10") < ParticipantID("p9")))
    }

    @Test func roomIDsAcceptTheWaysPeopleTypeThem() {
        #expect(RoomID("4821-7734")?.rawValue == "4821-7734")
        #expect(RoomID("48217734")?.rawValue == "4821-7734")
        #expect(RoomID("4821 7734")?.rawValue == "4821-7734")
        for bad in ["", "4821-773", "4821-77345", "abcd-efgh", "4821--7734-", "٤٨٢١-٧٧٣٤", "4821-7734\n"] {
            #expect(RoomID(bad) == nil, "\(bad)")
        }
    }

    @Test func pinsAreSixASCIIDigitsAndNeverPrint() {
        #expect(Pin("012345")?.digits == "012345")
        for bad in ["", "12345", "1234567", "12345a", "١٢٣٤٥٦", " 12345"] { #expect(Pin(bad) == nil, "\(bad)") }
        #expect("\(Pin("381204")!)" == "******")
    }

    @Test func namesHaveLimitsWithReasons() {
        #expect(Names.problem(withRoomName: "standup") == nil)
        #expect(Names.problem(withRoomName: "ab")?.contains("too short") == true)
        #expect(Names.problem(withRoomName: String(repeating: "x", count: 65))?.contains("too long") == true)
        #expect(Names.problem(withRoomName: String(repeating: "é", count: 64)) == nil)  // characters, not bytes
        #expect(Names.problem(withRoomName: "bad\u{7}name")?.contains("control") == true)
        #expect(Names.problem(withParticipantName: "a") == nil)
        #expect(Names.problem(withParticipantName: "") != nil)
        #expect(Names.problem(withParticipantName: " ann") != nil)
    }

    @Test func hostPortForms() throws {
        #expect(try HostPort.parse("192.0.2.5:7373").get() == HostPort(host: "192.0.2.5", port: 7373))
        #expect(try HostPort.parse(":0").get() == HostPort(host: "0.0.0.0", port: 0))
        #expect(try HostPort.parse("[::1]:80").get() == HostPort(host: "::1", port: 80))
        #expect(try HostPort.parse("example.org").get() == HostPort(host: "example.org", port: 7373))
        #expect(try HostPort.parse("[2001:db8::1]", defaultPort: 3478).get() == HostPort(host: "2001:db8::1", port: 3478))
        #expect(try HostPort.parse("stun.example.org:19302", defaultPort: 3478).get().port == 19302)
        #expect(HostPort(host: "::1", port: 80).description == "[::1]:80")
        for bad in ["host:99999", "host:x", "::1:80", "[::1", "[::1]x", "a b:1", "host:"] {
            #expect((try? HostPort.parse(bad).get()) == nil, "\(bad)")
        }
    }

    @Test func rendezvousAddresses() throws {
        // No scheme: TLS. Plain only when written so.
        let bare = try RendezvousAddress.parse("192.0.2.5:7373").get()
        #expect(bare.secure && bare.webSocketURL == "wss://192.0.2.5:7373/v1/ws" && bare.description == "wss://192.0.2.5:7373")
        let plain = try RendezvousAddress.parse("ws://192.0.2.5:7373").get()
        #expect(plain.webSocketURL == "ws://192.0.2.5:7373/v1/ws" && plain.description == "ws://192.0.2.5:7373")
        #expect(plain.createRoomURL == "http://192.0.2.5:7373/v1/rooms" && !plain.isLoopback)
        for loopback in ["ws://127.0.0.1:1", "ws://localhost:1", "ws://[::1]:1", "ws://127.9.9.9:1"] {
            #expect(try RendezvousAddress.parse(loopback).get().isLoopback, "\(loopback)")
        }
        for elsewhere in ["ws://128.0.0.1:1", "ws://127.example.org:1", "ws://[::2]:1"] {
            #expect(try !RendezvousAddress.parse(elsewhere).get().isLoopback, "\(elsewhere)")
        }
        let secure = try RendezvousAddress.parse("wss://rv.example.org:443/").get()
        #expect(secure.secure && secure.webSocketURL == "wss://rv.example.org:443/v1/ws")
        #expect(try RendezvousAddress.parse("https://rv.example.org").get().endpoint.port == 7373)
        for bad in ["", "ws://", "http://host/path", "ftp://x"] {
            #expect((try? RendezvousAddress.parse(bad).get()) == nil, "\(bad)")
        }
    }
}
