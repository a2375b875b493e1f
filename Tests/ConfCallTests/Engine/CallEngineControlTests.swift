import ConfCall
import ConfCore
import ConfWire
import Testing

/// What a participant does in a call: chat, mute, mute a peer here, leave.
@Suite struct CallEngineControlTests {
    @Test func chatTypedBeforeAnyoneConnectsGoesToTheFirstPeerWhoDoes() throws {
        let call = SimulatedCall(seed: 21, handshake: .fakeDTLS)
        let ann = try call.add("ann") { $0.failsWhenNobodyConnects = false }
        let bob = try call.add("bob")
        call.join(ann)
        call.run(for: .seconds(1))
        #expect(ann.engine.handle(.say("early bird"), now: call.now) == nil)
        call.step(ann)
        for index in 1...99 { #expect(ann.engine.handle(.say("more \(index)"), now: call.now) == nil) }
        #expect(ann.engine.handle(.say("one too many"), now: call.now) == .chatQueueFull, "100 messages wait at most")
        call.join(bob)
        #expect(call.run(for: .seconds(5)) { bob.chats.count == 100 })
        #expect(bob.chats.first == "early bird" && !bob.chats.contains("one too many"))
        let sent = ann.events.filter { if case .sent = $0.event { true } else { false } }
        #expect(sent.count == 100)
    }

    @Test func commandsNameAPeerByIdOrNameAndTwoOfOneNameAreNotGuessed() throws {
        let call = SimulatedCall(seed: 23, handshake: .fakeDTLS)
        let group = try ["ann", "bob", "bob", "Cy"].map { try call.add($0) }
        for who in group { call.join(who) }
        #expect(call.run(for: .seconds(10)) { call.fullMesh(group) })
        let ann = group[0].engine
        #expect(ann.findPeer("bob") == .several([group[1].id, group[2].id]))
        #expect(ann.findPeer(group[2].id.rawValue) == .one(group[2].id))
        #expect(ann.findPeer("Cy") == .one(group[3].id) && ann.findPeer("cy") == .one(group[3].id))
        #expect(ann.findPeer("dan") == .none)
    }

    @Test func leavingReportsNoPeerAsGoneWhileThePeerSeesUsLeave() throws {
        for seed in 22..<32 as Range<UInt64> {
            let (call, ann, bob) = try SimulatedCall.connectedPair(seed: seed, media: .audio)
            call.leave(bob)
            #expect(call.run(for: .seconds(5)) { ann.disconnections.contains { $0.peer == bob.id } })
            #expect(bob.disconnections.isEmpty, "seed \(seed): \(bob.disconnections)")
            #expect(ann.disconnections.map(\.code) == [.left], "seed \(seed)")
        }
    }

    /// Leaving says `bye` over each link's control channel: a peer hears it even when no
    /// rendezvous is left to say so (the host left with it), and a dying peer says nothing.
    @Test func aPeerThatLeavesSaysByeOverItsLink() throws {
        for dies in [false, true] {
            let call = SimulatedCall(seed: 41, handshake: .fakeDTLS)
            let (ann, bob) = (try call.add("ann"), try call.add("bob"))
            call.join(ann)
            call.join(bob)
            #expect(call.run(for: .seconds(5)) { call.fullMesh([ann, bob]) })
            #expect(bob.engine.handle(.say("going now"), now: call.now) == nil)
            #expect(call.run(for: .seconds(2)) { ann.chats == ["going now"] })  // the channels are open
            if dies { call.kill(bob) } else { call.leaveWithoutRendezvous(bob) }
            call.run(for: .seconds(2))
            #expect(ann.goodbyes == (dies ? [] : [bob.id]), "died: \(dies), \(ann.goodbyes)")
        }
    }

    /// Talking into a muted microphone is said once (the sim's microphone is always loud), and
    /// not again within 15 s even after muting anew; later it is.
    @Test func talkingWhileMutedIsSaidAtMostEvery15Seconds() throws {
        let (call, ann, _) = try SimulatedCall.connectedPair(seed: 34, media: .audio)
        let hints = { ann.events.filter { if case .talkingWhileMuted = $0.event { true } else { false } }.count }
        call.run(for: .seconds(1))
        #expect(hints() == 0, "not muted: no hint")
        ann.engine.handle(.setAudioMuted(true), now: call.now)
        call.run(for: .seconds(3))
        #expect(hints() == 1)
        ann.engine.handle(.setAudioMuted(false), now: call.now)
        call.run(for: .seconds(1))
        ann.engine.handle(.setAudioMuted(true), now: call.now)
        call.run(for: .seconds(3))
        #expect(hints() == 1, "within 15 s of the last")
        ann.engine.handle(.setAudioMuted(false), now: call.now)
        call.run(for: .seconds(12))
        ann.engine.handle(.setAudioMuted(true), now: call.now)
        call.run(for: .seconds(2))
        #expect(hints() == 2)
    }

    /// What the call screen's roster reads: the link's path, round trip and loss once connected,
    /// what was muted here, the last level played, our microphone's level.
    @Test func theRosterViewFollowsTheLink() throws {
        let (call, ann, bob) = try SimulatedCall.connectedPair(seed: 35, media: .audio)
        call.run(for: .seconds(3))
        #expect(ann.engine.participants.map(\.id) == [bob.id])
        let view = try #require(ann.engine.linkView(bob.id))
        #expect(view.connected && view.path != nil && view.roundTrip != nil && !view.mutedHere && view.level == nil)
        #expect(ann.engine.ownLevel == 30)
        ann.engine.handle(.played(bob.id, level: 12), now: call.now)
        #expect(ann.engine.handle(.setLocallyMuted(bob.id, true), now: call.now) == nil)
        #expect(ann.engine.linkView(bob.id)?.level == 12 && ann.engine.linkView(bob.id)?.mutedHere == true)
        #expect(ann.engine.linkView(ParticipantID("p9")) == nil)
    }

    @Test func mutingStopsOurAudioAndTellsThePeer() throws {
        let (call, ann, bob) = try SimulatedCall.connectedPair(seed: 33, media: .audio)
        call.run(for: .seconds(1))
        let before = bob.receivedAudioFrames[ann.id, default: 0]
        #expect(before > 20)
        ann.engine.handle(.setAudioMuted(true), now: call.now)
        call.step(ann)
        #expect(call.run(for: .seconds(1)) {
            bob.events.contains { if case .peerMuted(let who, true, false) = $0.event { who.id == ann.id } else { false } }
        })
        #expect(bob.engine.marks(of: ann.id).muted && bob.engine.marks(of: ann.id).badges == ["muted"], "bob's view marks ann muted")
        #expect(ann.engine.ownMarks.muted && !ann.engine.marks(of: bob.id).muted)
        let atMute = bob.receivedAudioFrames[ann.id, default: 0]
        call.run(for: .seconds(2))
        #expect(bob.receivedAudioFrames[ann.id, default: 0] <= atMute + 5, "nothing more from ann but what was on its way")
        #expect(ann.receivedAudioFrames[bob.id, default: 0] > 100, "bob still heard")
    }

    @Test func mutingAPeerHereMarksOnlyItsAudio() throws {
        let call = SimulatedCall(seed: 34, handshake: .fakeDTLS)
        let people = try ["ann", "bob", "cat"].map { try call.add($0) }
        for person in people {
            person.sendsAudio = true
            call.join(person)
        }
        let (ann, bob, cat) = (people[0], people[1], people[2])
        #expect(call.run(for: .seconds(5)) { call.fullMesh(people) })
        #expect(ann.engine.handle(.setLocallyMuted(bob.id, true), now: call.now) == nil)
        #expect(ann.engine.handle(.setLocallyMuted(ParticipantID("p9"), true), now: call.now) == .notConnected(ParticipantID("p9")), "nobody by that id")
        call.step(ann)
        let mutedBefore = ann.mutedAudioFrames[bob.id, default: 0]
        call.run(for: .seconds(1))
        #expect(ann.mutedAudioFrames[bob.id, default: 0] - mutedBefore >= 45, "a second of bob, marked muted")
        #expect(ann.mutedAudioFrames[cat.id, default: 0] == 0, "cat plays")
        #expect(!bob.events.contains { if case .peerMuted = $0.event { true } else { false } }, "bob is not told")
    }
}

/// Chat in a mesh whose links come up one by one.
extension CallEngineControlTests {
    /// cy is connected to bob; ann has just joined and her link to cy is still coming up when cy
    /// speaks: bob gets it at once, ann when her link opens (CI once lost it: it went only to the
    /// peers whose channel was open). Someone who joins afterwards does not get it.
    @Test func chatSaidWhileALinkComesUpReachesThatPeerToo() throws {
        let call = SimulatedCall(seed: 24, handshake: .fakeDTLS)
        let bob = try call.add("bob"), cy = try call.add("cy"), ann = try call.add("ann"), dan = try call.add("dan")
        call.join(bob)
        call.join(cy)
        #expect(call.run(for: .seconds(5)) { call.fullMesh([bob, cy]) })
        let signals = cy.signalsSent
        call.join(ann)
        // cy has begun a link to ann (its first signal to her went out); nothing is up yet.
        #expect(call.run(for: .seconds(5)) { cy.signalsSent > signals })
        #expect(!call.fullMesh([ann, bob, cy]), "ann's links are still coming up")
        #expect(cy.engine.handle(.say("standup in five"), now: call.now) == nil)
        #expect(call.run(for: .seconds(5)) { ann.chats.contains("standup in five") })
        #expect(bob.chats == ["standup in five"])
        call.join(dan)
        #expect(call.run(for: .seconds(5)) { call.fullMesh([ann, bob, cy, dan]) })
        call.run(for: .seconds(1))
        #expect(dan.chats.isEmpty, "a later joiner gets no earlier chat: \(dan.chats)")
    }
}

extension CallEngineControlTests {
    /// Ids go on growing as people leave and come back (p10, p11, ...): the roster, the links
    /// and two peers of one name keep the order they joined in, p2 before p10.
    @Test func theRosterKeepsTheOrderPeopleJoinedPastTheNinth() throws {
        let call = SimulatedCall(seed: 24, handshake: .fakeDTLS)
        let ann = try call.add("ann")
        let peers = [("p10", "bob"), ("p2", "bob"), ("p11", "cy"), ("p9", "dee")].map {
            Participant(id: ParticipantID($0.0), name: $0.1, role: .publisher)
        }
        ann.engine.handle(.joined(you: ParticipantID("p1"), role: .publisher, peers: peers), now: call.now)
        #expect(ann.engine.participants.map(\.id.rawValue) == ["p2", "p9", "p10", "p11"])
        #expect(ann.engine.findPeer("bob") == .several([ParticipantID("p2"), ParticipantID("p10")]))
    }
}

