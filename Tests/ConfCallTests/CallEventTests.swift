import ConfCall
import ConfCore
import ConfWire
import Testing

@Suite struct CallEventTests {
    static let ann = Participant(id: ParticipantID("p1"), name: "ann", role: .publisher)
    /// A name that tries to clear the screen, ring the bell and reverse the line.
    static let hostile = "\u{1B}[2J\u{7}evil\u{202E}gnp.exe\r"
    static let mal = Participant(id: ParticipantID("p3"), name: hostile, role: .publisher)
    static let time = EventTime(sinceStart: .milliseconds(1234) + .microseconds(567), wall: WallTime(nanosecondsSince1970: 1_764_588_305_123_456_789))

    /// One event of every type; `everyTypeHasASample` keeps it complete.
    static let samples: [CallEvent] = [
        .reachability(.init(verdict: .carrierGradeNAT, address: "192.168.1.10:7373", via: .none, advice: hostile)),
        .check(.init(verdict: ConnectivityVerdict(mapped: [STUNTransportAddress(address: [203, 0, 113, 7], port: 40_000)], local: [], forwarded: false),
                     portMapping: .init(verdict: .closed, address: "192.168.1.10:7373", via: .none, advice: hostile),
                     stunServers: ["198.51.100.1:7373"], ipv6: ["2001:db8::5"], turn: [.init(server: "198.51.100.1:3478", answered: false)])),
        .room(.init(room: RoomCreated(room: RoomID("4821-7734")!, pin: Pin("381204")!, listenPin: Pin("905117")!, name: "standup", resolution: .p480),
                    joinCommand: "conf join 4821-7734 381204 --server 192.0.2.5:7373",
                    listenJoinCommand: "conf join 4821-7734 905117 --server 192.0.2.5:7373", otherAddresses: ["10.0.0.2:7373"])),
        .joined(.init(you: ParticipantID("p2"), name: "bob", role: .publisher, room: RoomID("4821-7734")!, roomName: "standup",
                      resolution: .p480, peers: [ann])),
        .peerJoined(mal),
        .peerLeft(mal),
        .peerConnected(.init(peer: mal, path: "host", local: "127.0.0.1:5000", remote: "127.0.0.1:6000", roundTrip: .microseconds(1260),
                             sas: ["apple", "river", "stone", "cloud"], srtp: "AEAD_AES_128_GCM", iceConnected: .milliseconds(20), dtlsConnected: nil,
                             announced: .microseconds(31_250))),
        .peerDisconnected(.init(peer: mal, reason: .silence(limit: .milliseconds(2500)), wasConnected: true)),
        .chat(from: mal, text: hostile),
        .sent(to: mal, text: hostile),
        .muted(audio: true, video: false),
        .peerMuted(mal, audio: true, video: false),
        .peerMutedLocally(mal, muted: true),
        .camera(on: false),
        .cameraSwitched(device: "/dev/video1", mode: "MJPEG 1280x720 at 30 fps"),
        .peerVideoMuted(mal),
        .peerVideoUnmuted(mal),
        .peerVideoHidden(mal, hidden: true),
        .talking(.peer(mal), talking: true),
        .talkingWhileMuted,
        .audioStats([.init(peer: ParticipantID("p3"), kbps: 31.26, lossPercent: 0, jitter: .microseconds(1_840), buffered: .milliseconds(60),
                           target: .milliseconds(40), concealed: .zero)]),
        .linkStats([.init(peer: ParticipantID("p3"), estimateKbps: 987.65, sentKbps: 912.34, roundTrip: .microseconds(41_260), lossPercent: 1.25,
                          queueDelay: .microseconds(8_340), videoLayers: 3, sharedKbps: 301.26)]),
        .videoPaused(mal, reason: .bandwidth),
        .videoResumed(mal),
        .devices(sources: [.init(name: "s1.monitor", description: hostile, isMonitor: true)], sinks: [.init(name: "s1", description: "Null", isMonitor: false)],
                 cameras: [.init(path: "/dev/video0", name: hostile, modes: [.init(format: "MJPEG", width: 1280, height: 720, framesPerSecond: 30)],
                                 isDefault: true)]),
        .devicesMissing([.microphone, .speaker], reason: "Connection refused"),
        .deviceLost(.speaker(mal)),
        .recordError(peer: mal, path: "out/\(hostile).wav", error: "No space left on device"),
        .listenerIgnored(mal, what: .chat),
        .knocking(room: RoomID("4821-7734")!, message: hostile),
        .knock(.init(id: KnockID("k1")!, name: hostile, role: .publisher)),
        .knockEnded(KnockID("k1")!, outcome: .admitted),
        .rendezvousLost(rendezvous: "127.0.0.1:7373", reason: .closed(code: 1011, reason: hostile)),
        .rendezvousBack(rendezvous: "127.0.0.1:7373"),
        .rendezvousClosed(rendezvous: "127.0.0.1:7373", reason: .seatGone(.resumeRefused, message: hostile)),
        .left(.duration),
        .error(.rendezvous(.badMessage, message: hostile)),
    ]

    @Test func everyTypeHasASample() {
        #expect(Set(Self.samples.map(\.type)) == Set(CallEvent.allTypes))
    }

    /// What the documentation (the man page's JSON EVENTS, docs/REFERENCE.md) says an event
    /// carries is what its JSON has.
    @Test(arguments: samples)
    func theDocumentedMembersAreTheJSONsMembers(_ event: CallEvent) throws {
        guard case .object(let members) = event.json(at: Self.time) else {
            Issue.record("not an object")
            return
        }
        #expect(members.dropFirst(3).map(\.key) == event.kind.documentation.members)
    }

    @Test(arguments: samples)
    func jsonStartsWithTypeTimeAndWallClock(_ event: CallEvent) throws {
        guard case .object(let members) = event.json(at: Self.time) else {
            Issue.record("not an object")
            return
        }
        #expect(members.map(\.key).prefix(3) == ["type", "t", "at"])
        #expect(members.first?.value == .string(event.type))
        #expect(members.dropFirst().first?.value == .number(1.235))
        #expect(members.dropFirst(2).first?.value == .string("2025-12-01T11:25:05.123Z"))
        #expect(Set(members.map(\.key)).count == members.count, "a member twice")
        // What is printed parses back to the same object.
        #expect(try JSONValue.parse(event.json(at: Self.time).serialized) == event.json(at: Self.time))
    }

    @Test(arguments: samples)
    func humanTextNeverCarriesTheNetworksControlCharacters(_ event: CallEvent) {
        guard let plain = event.human(Style(enabled: false))?.rendered else { return }
        #expect(!plain.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{7}" || $0 == "\r" || $0 == "\u{202E}" }, "\(plain)")
        // With colour, the only escapes are our own SGR sequences.
        let styled = event.human(Style(enabled: true))?.rendered ?? ""
        #expect(!styled.contains("\u{1B}[2J") && !styled.contains("\u{202E}"))
    }

    @Test func hostileNamesAndChatAreShownEscapedAndKeptExactInJSON() {
        let chat = CallEvent.chat(from: Self.mal, text: Self.hostile)
        #expect(chat.human(Style(enabled: false))?.rendered == #"\e[2J\aevil\u202egnp.exe\r: \e[2J\aevil\u202egnp.exe\r"#)
        #expect(chat.json(at: Self.time)["text"]?.stringValue == Self.hostile)
        #expect(chat.json(at: Self.time).serialized.contains(#""text":"\u001b[2J\u0007evil\u202egnp.exe\r""#))
    }

    @Test func peerDisconnectedKeepsItsMembersAndSaysTheReasonFromTheCode() {
        let event = CallEvent.peerDisconnected(.init(peer: Self.ann, reason: .connectTimeout(.seconds(2), stalledAt: .unanswered), wasConnected: false))
        #expect(event.json(at: Self.time).serialized == #"{"type":"peer-disconnected","t":1.235,"at":"2025-12-01T11:25:05.123Z","#
            + #""peer":"p1","code":"connect-timeout","reason":"could not connect within 2 s: the peer never answered the offer"}"#)
        #expect(event.human(Style(enabled: false))?.rendered == "× could not connect to ann (p1): could not connect within 2 s: the peer never answered the offer")
        let lost = CallEvent.peerDisconnected(.init(peer: Self.ann, reason: .silence(limit: .milliseconds(2500)), wasConnected: true))
        #expect(lost.human(Style(enabled: false))?.rendered == "× lost ann (p1): nothing heard for 2.5 s: the peer vanished or the network broke")
    }

    @Test func everyDisconnectReasonHasItsCodeAndWords() {
        let reasons: [(DisconnectReason, DisconnectCode)] = [
            (.left, .left), (.restarting, .restarting), (.noPath(within: nil), .noPath), (.noPath(within: .seconds(10)), .noPath),
            (.pathFailed, .pathFailed), (.connectTimeout(.seconds(10), stalledAt: .handshake), .connectTimeout),
            (.silence(limit: .seconds(3)), .silence), (.negotiationFailed("no audio section"), .negotiationFailed),
            (.dtlsFailed(.srtp, detail: "bad key"), .dtlsFailed), (.iceUnavailable("no addresses"), .noPath),
        ]
        for (reason, code) in reasons {
            #expect(reason.code == code)
            #expect(!reason.words.isEmpty)
        }
        #expect(DisconnectReason.noPath(within: .seconds(10)).words.hasPrefix("could not connect within 10 s: no network path"))
        #expect(DisconnectReason.dtlsFailed(.srtp, detail: "bad key").words == "cannot set up SRTP: bad key")
    }

    @Test func peerConnectedRoundsToTenthsAndLeavesOutStepsNotReached() {
        let event = Self.samples.first { $0.kind == .peerConnected }!
        #expect(event.json(at: Self.time).serialized.hasSuffix(#""path":"host","local":"127.0.0.1:5000","remote":"127.0.0.1:6000","#
            + #""rtt_ms":1.3,"sas":"apple river stone cloud","srtp":"AEAD_AES_128_GCM","setup_ms":{"ice":20,"connected":31.3}}"#))
    }

    @Test func linkStatsSayTheUplinkShareOrZero() {
        func shared(_ kbps: Double?) -> Double? {
            let event = CallEvent.linkStats([.init(peer: ParticipantID("p2"), estimateKbps: 300, sentKbps: 250, roundTrip: nil, lossPercent: 0,
                                                   queueDelay: .zero, videoLayers: 3, sharedKbps: kbps)])
            return event.json(at: Self.time)["links"]?.arrayValue?.first?["shared_kbps"]?.numberValue
        }
        #expect(shared(nil) == 0)
        #expect(shared(301.26) == 301.3)
    }

    @Test func leftAfterAFailureHasNoHumanLineButItsCodeInJSON() {
        let event = CallEvent.left(.failed(code: "wrong-pin"))
        #expect(event.human(Style(enabled: false)) == nil)
        #expect(event.json(at: Self.time)["reason"] == "wrong-pin")
        #expect(CallEvent.left(.command).json(at: Self.time)["reason"] == "command")
    }

    @Test func rendezvousReasonsAreCodes() {
        let closed = CallEvent.rendezvousClosed(rendezvous: "r:1", reason: .seatGone(.resumeRefused, message: "gone"))
        #expect(closed.json(at: Self.time)["reason"] == "resume-refused")
        #expect(closed.human(Style(enabled: false))?.rendered == "! the rendezvous at r:1 no longer has this room (gone): the call goes on with those connected; nobody new can join")
        let lost = CallEvent.rendezvousLost(rendezvous: "r:1", reason: .stoppedAnswering)
        #expect(lost.json(at: Self.time)["code"] == "stopped-answering")
        #expect(lost.json(at: Self.time)["reason"] == "it stopped answering")
    }
}
