import ConfSession
import ConfWire
import Testing

/// The listen-only role is enforced by each publisher from the roster's roles, not trusted from the
/// listener's SDP: toward a listener a publisher only ever sends.
@Suite struct ListenerRoleTests {
    static func endpoint(_ role: Role, peer: Role) -> LocalEndpoint {
        LocalEndpoint(iceUfrag: "abcd", icePwd: String(repeating: "x", count: 24), fingerprint: Fingerprint(bytes: Array(repeating: 1, count: 32)),
                      role: role, audioSSRC: 1, videoSSRC: 2, peerRole: peer)
    }

    @Test func aPublisherAnswersASendrecvOfferFromAListenerWithSendonly() throws {
        // The listener's client pretends to publish: its offer says sendrecv for audio and video.
        let offer = SDPNegotiation.offer(from: Self.endpoint(.publisher, peer: .publisher), sessionID: 1)
        #expect(offer.media[0].direction == .sendrecv)
        let (answer, link) = try SDPNegotiation.answer(to: offer, from: Self.endpoint(.publisher, peer: .listener), sessionID: 2)
        #expect(answer.media[0].direction == .sendonly && answer.media[1].direction == .sendonly)
        #expect(answer.serialized.contains("a=sendonly") && !answer.serialized.contains("a=sendrecv"))
        #expect(link.audio?.receives == false && link.video?.receives == false)
        #expect(link.audio?.sends == true)
    }

    @Test func aListenerOfferingOnlyToSendGetsInactive() throws {
        var offer = SDPNegotiation.offer(from: Self.endpoint(.publisher, peer: .publisher), sessionID: 1)
        for i in 0..<2 { offer.media[i].direction = .sendonly }
        let (answer, link) = try SDPNegotiation.answer(to: offer, from: Self.endpoint(.publisher, peer: .listener), sessionID: 2)
        #expect(answer.media[0].direction == .inactive && answer.media[1].direction == .inactive)
        #expect(link.audio?.receives == false && link.audio?.sends == false)
    }

    @Test func aPublisherOffersSendonlyToAListenerAndIgnoresASendrecvAnswer() throws {
        let offer = SDPNegotiation.offer(from: Self.endpoint(.publisher, peer: .listener), sessionID: 1)
        #expect(offer.media[0].direction == .sendonly && offer.media[1].direction == .sendonly)
        // The listener answers as if it published.
        let (answer, _) = try SDPNegotiation.answer(to: offer, from: Self.endpoint(.publisher, peer: .publisher), sessionID: 2)
        var hostile = answer
        for i in 0..<2 { hostile.media[i].direction = .sendrecv }
        let link = try SDPNegotiation.accept(answer: hostile, to: offer)
        #expect(link.audio?.direction == .sendonly && link.video?.direction == .sendonly)
    }

    @Test func theMeshTakesThePeersRoleFromTheRosterWhicheverSideOffers() {
        let room = SimulatedRoom()
        let early = room.join(role: .listener, claims: .publisher)  // a publisher joining later offers to it
        let publisher = room.join()
        let late = room.join(role: .listener, claims: .publisher)  // it offers to the publisher
        for listener in [early, late] {
            #expect(room.members[publisher]!.links[listener]?.audio?.direction == .sendonly)
            #expect(room.members[publisher]!.links[listener]?.video?.direction == .sendonly)
            #expect(room.members[listener]!.links[publisher]?.audio?.direction == .recvonly)
        }
        // Even two listeners that both claim to publish hold each other to the roster: nothing flows.
        #expect(room.members[early]!.links[late]?.audio?.direction == .inactive)
        #expect(room.members[publisher]!.failures.isEmpty)
    }
}
