@testable import ConfCall
import ConfCore
import ConfWire
import Testing

/// The mesh on a simulated network: who connects to whom, in any order of arrival.
@Suite struct CallEngineMeshTests {
    @Test func twoParticipantsConnectAndChat() throws {
        let call = SimulatedCall(seed: 1)
        let ann = try call.add("ann")
        let bob = try call.add("bob") { $0.say = ["hello from bob"] }
        call.join(ann)
        call.run(for: .milliseconds(50))
        call.join(bob)
        #expect(call.run(for: .seconds(5)) {
            call.fullMesh([ann, bob]) && ann.chats.contains("hello from bob") && !ann.connectedEvents.isEmpty && !bob.connectedEvents.isEmpty
        })
        let annSide = try #require(ann.connectedEvents.first), bobSide = try #require(bob.connectedEvents.first)
        #expect(annSide.sas == bobSide.sas && !annSide.sas.isEmpty, "both read the same words")
        // The profile DTLS agreed is reported, and the pacer counts its 16-byte tag (RFC 7714).
        #expect(annSide.srtp == "AEAD_AES_128_GCM" && bobSide.srtp == "AEAD_AES_128_GCM")
        #expect(ann.engine.peerSlots[bob.id]?.link?.srtpTagBytes == 16 && bob.engine.peerSlots[ann.id]?.link?.srtpTagBytes == 16)
        let rtt = try #require(annSide.roundTrip)
        #expect(rtt >= .milliseconds(35) && rtt < .milliseconds(100), "a 20 ms one-way network: \(rtt)")
    }

    /// Every order of four arrivals, some at once (inside the rendezvous's relay delay), some apart.
    @Test(arguments: permutations(of: [0, 1, 2, 3]))
    func fourPartiesConnectInAnyJoinOrder(order: [Int]) throws {
        let call = SimulatedCall(seed: UInt64(order.reduce(0) { $0 * 4 + $1 }))
        let people = try ["ann", "bob", "cat", "dan"].map { try call.add($0) }
        for (step, index) in order.enumerated() {
            call.join(people[index])
            // Alternately at once and 30 ms apart: offers cross the rendezvous with peer-joined.
            if step % 2 == 1 { call.run(for: .milliseconds(30)) }
        }
        #expect(call.run(for: .seconds(5)) { call.fullMesh(people) && people.allSatisfy { $0.connectedEvents.count == 3 } })
        for person in people {
            #expect(person.disconnections.isEmpty, "\(person.name): \(person.disconnections)")
            #expect(Set(person.connectedEvents.map(\.peer.id)).count == 3)
        }
    }

    /// A link opens when the peer arrives, not when we joined: its connect timeout counts from then.
    @Test func aPeerWhoArrivesLongAfterUsConnects() throws {
        let call = SimulatedCall(seed: 2)
        let ann = try call.add("ann") { $0.failsWhenNobodyConnects = false }
        let bob = try call.add("bob")
        call.join(ann)
        call.run(for: .seconds(30))
        call.join(bob)
        #expect(call.run(for: .seconds(5)) { call.fullMesh([ann, bob]) && !ann.connectedEvents.isEmpty })
        #expect(ann.disconnections.isEmpty, "\(ann.disconnections)")
        let setup = try #require(ann.connectedEvents.first?.announced)
        #expect(setup < .seconds(1), "set-up counted from bob's arrival: \(setup)")
    }

    @Test func duplicatedSignalsDoNotBreakTheMesh() throws {
        let call = SimulatedCall(seed: 3)
        call.duplicatesSignals = true
        let people = try ["ann", "bob", "cat"].map { try call.add($0) }
        for person in people { call.join(person) }
        #expect(call.run(for: .seconds(5)) { call.fullMesh(people) && people.allSatisfy { $0.connectedEvents.count == 2 } })
        #expect(call.run(for: .seconds(3)) { people.contains { !$0.disconnections.isEmpty } } == false, "the links stay up")
    }

    @Test func aSignalFromSomeoneWhoLeftIsIgnored() throws {
        let call = SimulatedCall(seed: 4)
        let ann = try call.add("ann"), bob = try call.add("bob")
        call.join(ann)
        call.join(bob)
        #expect(call.run(for: .seconds(5)) { call.fullMesh([ann, bob]) })
        call.leave(bob)
        #expect(call.run(for: .seconds(1)) { ann.disconnections.contains { $0.peer == bob.id && $0.code == .left } })
        // A late offer from bob's old link arrives after bob left.
        ann.pending.append(.signal(from: bob.id, .object(["type": "offer", "sdp": "v=0\r\n"])))
        call.step(ann)
        #expect(call.run(for: .seconds(20)) { ann.engine.nextDeadline() == nil && !ann.engine.isConnected(bob.id) })
    }
}

/// All orderings of `items`.
func permutations(of items: [Int]) -> [[Int]] {
    guard items.count > 1 else { return [items] }
    return items.indices.flatMap { index -> [[Int]] in
        var rest = items
        let first = rest.remove(at: index)
        return permutations(of: rest).map { [first] + $0 }
    }
}

/// One encoder serves every link, so a key frame asked for one link goes to all of them.
@Suite struct CallEngineMeshKeyFrameTests {
    /// Everyone joins at once, ann sending video from the start; dan's links take longer to come up.
    func formMesh(seed: UInt64, danDelay: Duration) throws -> (SimulatedCall, [SimulatedCall.Participant]) {
        let call = SimulatedCall(seed: seed, handshake: .fakeDTLS)
        let people = try ["ann", "bob", "cat", "dan"].map { try call.add($0) }
        for peer in people.dropLast() {
            call.network.setConditions(LinkConditions(delay: danDelay), between: people[3].id, and: peer.id)
        }
        people[0].sendsVideo = true
        people[0].layeredVideo = LayeredVideoSource()
        for person in people { call.join(person) }
        #expect(call.run(for: .seconds(5)) { call.fullMesh(people) })
        call.run(for: .seconds(1))
        return (call, people)
    }

    @Test func aMeshFormingAtOnceSharesOneKeyFrame() throws {
        let (_, people) = try formMesh(seed: 36, danDelay: .milliseconds(120))
        let ann = people[0]
        #expect(ann.keyFrameRequests == 1, "\(ann.keyFrameRequests) key frames asked")
        for peer in people.dropFirst() { #expect(peer.videoFrames[ann.id, default: 0] > 0, "\(peer.card.name) sees ann") }
    }

    @Test func aLinkThatComesUpLongAfterTheOthersIsNotKeptWaiting() throws {
        // dan's links come up over a second after the others: bob's and cat's video does not wait for them.
        let (_, people) = try formMesh(seed: 37, danDelay: .milliseconds(700))
        let ann = people[0]
        #expect(ann.keyFrameRequests == 2, "one for bob's and cat's links, one for dan's")
        for peer in people.dropFirst() { #expect(peer.videoFrames[ann.id, default: 0] > 0, "\(peer.card.name) sees ann") }
    }

    /// cat cannot reach ann, so ann's link to cat negotiates until its connect timeout (15 s).
    /// dan comes seconds later: his link's key frame is asked as it comes up, not after the
    /// longest wait for a mesh forming at once.
    @Test func aPeerWeCannotReachDoesNotKeepLaterLinksWaiting() throws {
        let call = SimulatedCall(seed: 38, handshake: .fakeDTLS)
        let people = try ["ann", "bob", "cat", "dan"].map { try call.add($0) }
        let ann = people[0], bob = people[1], cat = people[2], dan = people[3]
        call.network.partition(ann.id, cat.id)
        ann.sendsVideo = true
        ann.layeredVideo = LayeredVideoSource()
        for person in [ann, bob, cat] { call.join(person) }
        #expect(call.run(for: .seconds(5)) { bob.videoFrames[ann.id, default: 0] > 0 })
        call.run(for: .seconds(4))
        #expect(ann.engine.peerSlots[cat.id]?.link?.phase == .negotiating, "the link to cat is still negotiating")
        call.join(dan)
        #expect(call.run(for: .seconds(5)) { dan.videoFrames[ann.id, default: 0] > 0 })
        let connected = try #require(ann.events.first { if case .peerConnected(let info) = $0.event { info.peer.id == dan.id } else { false } }?.at)
        let asked = try #require(ann.keyFramesAskedAt.last)
        #expect(asked >= connected - .milliseconds(200) && asked.since(connected) < .milliseconds(250),
                "dan's key frame asked \(asked.since(connected)) after his link was announced")
    }
}
