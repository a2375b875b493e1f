import ConfCore
import ConfRendezvous
import ConfWire
import Testing

/// A rendezvous that answers STUN hands itself out as the STUN server, at the host and port each
/// participant reached it by, unless its operator named one.
@Suite struct SelfSTUNTests {
    static func config(answersSTUN: Bool = true, iceServers: [IceServer] = []) -> RendezvousConfig {
        var config = RendezvousConfig()
        config.answersSTUN = answersSTUN
        config.iceServers = iceServers
        return config
    }

    @Test func eachParticipantGetsTheAddressItCameBy() {
        let harness = RendezvousHarness(config: Self.config())
        let room = harness.createRoom()
        let (_, ann) = harness.join(room, name: "ann", host: "203.0.113.5:7373")
        let (_, bob) = harness.join(room, name: "bob", host: "rendezvous.example.org:8443")
        let (_, cy) = harness.join(room, name: "cy", host: "[2001:db8::5]:7373")
        #expect(ann?.iceServers == [IceServer(urls: ["stun:203.0.113.5:7373"])])
        #expect(bob?.iceServers == [IceServer(urls: ["stun:rendezvous.example.org:8443"])])
        #expect(cy?.iceServers == [IceServer(urls: ["stun:[2001:db8::5]:7373"])])
    }

    @Test func theOperatorsSTUNServerWinsAndTURNIsKept() {
        let turn = IceServer(urls: ["turn:198.51.100.9:3478"], username: "u", credential: "p")
        let stun = IceServer(urls: ["stun:198.51.100.9:3478"])
        let withTURN = RendezvousHarness(config: Self.config(iceServers: [turn]))
        let (_, joined) = withTURN.join(withTURN.createRoom(), host: "203.0.113.5:7373")
        #expect(joined?.iceServers == [IceServer(urls: ["stun:203.0.113.5:7373"]), turn])

        let withSTUN = RendezvousHarness(config: Self.config(iceServers: [stun, turn]))
        let (_, named) = withSTUN.join(withSTUN.createRoom(), host: "203.0.113.5:7373")
        #expect(named?.iceServers == [stun, turn])
    }

    @Test func nothingWhenItDoesNotAnswerSTUNOrTheHostHasNoPort() {
        let off = RendezvousHarness(config: Self.config(answersSTUN: false))
        #expect(off.join(off.createRoom(), host: "203.0.113.5:7373").1?.iceServers == [])
        let harness = RendezvousHarness(config: Self.config())
        let room = harness.createRoom()
        for host in [nil, "rendezvous.example.org", "[2001:db8::5]", "203.0.113.5:0"] {
            #expect(harness.join(room, name: "p\(host?.count ?? 0)", host: host).1?.iceServers == [], "\(host ?? "nil")")
        }
    }

    @Test func aHostileHostHeaderIsNeverHandedOn() {
        let harness = RendezvousHarness(config: Self.config())
        let room = harness.createRoom()
        let hostile = ["evil.org:7373?transport=tcp", "a b:7373", "evil.org:7373\r\nX: y", "x:99999", ":7373", "-x.org:7373",
                       "a..b:7373", "[::1]x:7373", "\u{1b}[31m:7373", String(repeating: "a", count: 300) + ":7373",
                       "user@evil.org:7373", "2001:db8::1:7373"]
        for (index, host) in hostile.enumerated() {
            let (_, joined) = harness.join(room, name: "p\(index)", host: host)
            #expect(joined?.iceServers == [], "\(host)")
            if index == 2 { break }  // a room holds four
        }
        // The rest on fresh rooms (four seats each).
        for host in hostile.dropFirst(3) {
            let fresh = harness.createRoom()
            #expect(harness.join(fresh, host: host).1?.iceServers == [], "\(host)")
        }
    }
}
