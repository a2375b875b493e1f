import ConfCore
import ConfSession
import ConfWire
import Testing

/// Several `Mesh`es talking through a simulated rendezvous that relays their signals in order.
final class SimulatedRoom {
    struct Member {
        let participant: Participant
        let mesh: Mesh
        let fingerprint: Fingerprint
        var links: [ParticipantID: NegotiatedLink] = [:]
        var remoteCandidates: [ParticipantID: [IceCandidate]] = [:]
        var closed: [ParticipantID] = []
        var failures: [ParticipantID: String] = [:]
        var controlling: [ParticipantID: Bool] = [:]
        var candidateLimits: [ParticipantID] = []
        var negotiations = 0
    }

    var members: [ParticipantID: Member] = [:]
    var order: [ParticipantID] = []
    private var next = 1
    private var wire: [(from: ParticipantID, to: ParticipantID, PeerSignal)] = []
    var tamper: ((PeerSignal) -> PeerSignal)?

    /// `claims`: the role the participant's own client acts as (a hostile listener claims publisher);
    /// the others know it by `role`, as the rendezvous tells them.
    func join(role: Role = .publisher, claims: Role? = nil) -> ParticipantID {
        let id = ParticipantID("p\(next)")
        let fingerprint = Fingerprint(bytes: (0..<32).map { UInt8(truncatingIfNeeded: next * 31 + $0) })
        let number = next
        next += 1
        var links = 0
        let mesh = Mesh(sessionID: UInt64(number)) { peer, _ in
            // Fresh credentials for every link, as a restart has (RFC 8839 §4.4.1.1.1).
            links += 1
            return LocalEndpoint(iceUfrag: "u\(number)\(peer.rawValue)x\(links)", icePwd: String(repeating: "\(number)", count: 24), fingerprint: fingerprint,
                          role: claims ?? role, audioSSRC: SSRC(UInt32(number * 10)), videoSSRC: SSRC(UInt32(number * 10 + 1)))
        }
        let participant = Participant(id: id, name: id.rawValue, role: role)
        let present = order.compactMap { members[$0]?.participant }
        members[id] = Member(participant: participant, mesh: mesh, fingerprint: fingerprint)
        mesh.joined(peers: present)
        for other in order { members[other]!.mesh.peerJoined(participant) }
        order.append(id)
        pump()
        return id
    }

    func leave(_ id: ParticipantID) {
        members[id] = nil
        order.removeAll { $0 == id }
        for other in order { members[other]!.mesh.peerLeft(id) }
        pump()
    }

    /// Gives `id` a gathered candidate for its link to `peer`.
    func gather(_ id: ParticipantID, for peer: ParticipantID, _ candidate: IceCandidate, done: Bool = false) {
        members[id]!.mesh.localCandidate(candidate, for: peer)
        if done { members[id]!.mesh.localGatheringDone(for: peer) }
        pump()
    }

    /// Delivers everything in flight until nothing moves.
    func pump() {
        var moved = true
        while moved {
            moved = false
            for id in order {
                while let output = members[id]?.mesh.pollOutput() {
                    moved = true
                    switch output {
                    case .open(let peer, let controlling): members[id]!.controlling[peer] = controlling
                    case .signal(let peer, let signal): wire.append((id, peer, tamper?(signal) ?? signal))
                    case .negotiated(let peer, let link):
                        members[id]!.links[peer] = link
                        members[id]!.negotiations += 1
                    case .remoteCandidate(let peer, let c): members[id]!.remoteCandidates[peer, default: []].append(c)
                    case .remoteCandidatesDone: break
                    case .candidateLimitReached(let peer, _): members[id]!.candidateLimits.append(peer)
                    case .failed(let peer, let error): members[id]!.failures[peer] = error.description
                    case .close(let peer): members[id]!.closed.append(peer)
                    }
                }
            }
            while !wire.isEmpty {
                moved = true
                let (from, to, signal) = wire.removeFirst()
                members[to]?.mesh.received(signal, from: from)
            }
        }
    }
}

@Suite struct MeshTests {
    static let candidate = try! IceCandidate.parse("candidate:1 1 udp 2130706431 127.0.0.1 40000 typ host").get()

    @Test func fourParticipantsNegotiateAllSixLinksConsistently() {
        let room = SimulatedRoom()
        let ids = (0..<4).map { _ in room.join() }
        for a in ids {
            let member = room.members[a]!
            #expect(member.links.count == 3, "\(a)")
            for b in ids where b != a {
                let mine = member.links[b]!, theirs = room.members[b]!.links[a]!
                #expect(mine.remoteFingerprints == [room.members[b]!.fingerprint])
                #expect(mine.dtlsRole != theirs.dtlsRole)
                #expect(mine.iceControlling != theirs.iceControlling)
                // The newcomer (larger id here) offered and controls.
                #expect(mine.iceControlling == (ids.firstIndex(of: a)! > ids.firstIndex(of: b)!))
                #expect(mine.audio?.payloadType == 111 && mine.video?.payloadType == 96 && mine.sctpPort == 5000)
            }
        }
    }

    @Test func trickledCandidatesReachThePeerWhenEverTheyAreGathered() {
        let room = SimulatedRoom()
        let a = room.join()
        let b = room.join()  // b offers to a
        room.gather(a, for: b, Self.candidate, done: true)
        room.gather(b, for: a, Self.candidate)
        #expect(room.members[b]!.remoteCandidates[a] == [Self.candidate])
        #expect(room.members[a]!.remoteCandidates[b] == [Self.candidate])
    }

    @Test func candidatesArrivingBeforeTheOfferWait() {
        // The answerer's negotiator gets a candidate before it has seen an offer: it is held.
        let local = LocalEndpoint(iceUfrag: "abcd", icePwd: String(repeating: "x", count: 24), fingerprint: Fingerprint(bytes: Array(repeating: 1, count: 32)),
                                  role: .publisher, audioSSRC: 1, videoSSRC: 2)
        let offerer = PeerNegotiator(local: local, isOfferer: true, sessionID: 1)
        let answerer = PeerNegotiator(local: local, isOfferer: false, sessionID: 2)
        answerer.handle(.candidate(mid: "0", Self.candidate))
        #expect(answerer.pollOutput() == nil)
        offerer.start()
        guard case .send(let offer)? = offerer.pollOutput() else { Issue.record("no offer"); return }
        answerer.handle(offer)
        var outputs: [PeerNegotiator.Output] = []
        while let output = answerer.pollOutput() { outputs.append(output) }
        #expect(outputs.count == 3)
        #expect(outputs.last == .remoteCandidate(Self.candidate))
    }

    @Test func leavesInAnyOrderCloseExactlyTheirLinks() {
        let room = SimulatedRoom()
        let ids = (0..<4).map { _ in room.join() }
        room.leave(ids[1])
        for id in [ids[0], ids[2], ids[3]] { #expect(room.members[id]!.closed == [ids[1]]) }
        let late = room.join()
        for id in [ids[0], ids[2], ids[3]] { #expect(room.members[id]!.links[late] != nil) }
        room.leave(ids[0])
        room.leave(late)
        #expect(room.members[ids[2]]!.closed == [ids[1], ids[0], late])
        #expect(room.members[ids[3]]!.mesh.peers == [ids[2]])
    }

    @Test func theOffererRestartsALinkAndTheAnswererFollows() {
        let room = SimulatedRoom()
        let a = room.join()
        let b = room.join()  // b offered to a
        #expect(room.members[a]!.negotiations == 1 && room.members[b]!.negotiations == 1)
        #expect(room.members[a]!.mesh.restart(b) == false)  // only the offerer restarts
        #expect(room.members[b]!.mesh.restart(a))
        room.pump()
        #expect(room.members[a]!.negotiations == 2 && room.members[b]!.negotiations == 2)  // a new offer, answered
        #expect(room.members[b]!.links[a]!.remoteFingerprints == [room.members[a]!.fingerprint])
        #expect(room.members[a]!.failures.isEmpty && room.members[b]!.failures.isEmpty)
    }

    @Test func aListenerAsksOnlyToReceive() {
        let room = SimulatedRoom()
        let publisher = room.join()
        let listener = room.join(role: .listener)
        #expect(room.members[listener]!.links[publisher]?.audio?.direction == .recvonly)
        #expect(room.members[publisher]!.links[listener]?.audio?.direction == .sendonly)
        #expect(room.members[publisher]!.links[listener]?.video?.direction == .sendonly)
    }

    @Test func anOfferWithoutFingerprintIsRefused() {
        let room = SimulatedRoom()
        room.tamper = { signal in
            guard case .offer(let sdp) = signal else { return signal }
            return .offer(sdp.split(separator: "\r\n").filter { !$0.hasPrefix("a=fingerprint") }.joined(separator: "\r\n") + "\r\n")
        }
        let a = room.join()
        let b = room.join()
        #expect(room.members[a]!.failures[b]?.contains("no a=fingerprint") == true)
        #expect(room.members[a]!.links[b] == nil)
    }

    @Test func unexpectedSignalsFailTheLinkWithAReason() {
        let local = LocalEndpoint(iceUfrag: "abcd", icePwd: String(repeating: "x", count: 24), fingerprint: Fingerprint(bytes: Array(repeating: 1, count: 32)),
                                  role: .publisher, audioSSRC: 1, videoSSRC: 2)
        let offerer = PeerNegotiator(local: local, isOfferer: true, sessionID: 1)
        offerer.start()
        _ = offerer.pollOutput()
        offerer.handle(.offer("v=0"))
        #expect(offerer.pollOutput() == .failed(NegotiationError("the peer sent an offer although we offered (glare): conf's newcomer offers, nobody else")))
        let answerer = PeerNegotiator(local: local, isOfferer: false, sessionID: 1)
        answerer.handle(.offer("garbage"))
        guard case .failed(let error)? = answerer.pollOutput() else { Issue.record("accepted garbage"); return }
        #expect(error.description.contains("invalid"))
    }

    @Test func extraSectionsAreRejectedNotFatal() throws {
        let local = LocalEndpoint(iceUfrag: "abcd", icePwd: String(repeating: "x", count: 24), fingerprint: Fingerprint(bytes: Array(repeating: 1, count: 32)),
                                  role: .publisher, audioSSRC: 1, videoSSRC: 2)
        var offer = SDPNegotiation.offer(from: local, sessionID: 1)
        var extra = MediaDescription(kind: .other("text"), proto: "RTP/AVP", formats: ["98"], mid: "9")
        extra.rtcpMux = true
        offer.media.append(extra)
        offer.bundle.append("9")
        let (answer, link) = try SDPNegotiation.answer(to: offer, from: local, sessionID: 2)
        #expect(answer.media.count == 4 && answer.media[3].port == 0)
        #expect(answer.bundle == ["0", "1", "2"])
        #expect(link.dtlsRole == .client)  // the answerer to actpass is active: the DTLS client
    }
}

@Suite struct MeshAbandonTests {
    @Test func anAbandonedAnswererStartsAFreshLinkOnTheNextOffer() {
        let room = SimulatedRoom()
        let a = room.join()
        let b = room.join()  // b offered to a
        #expect(room.members[a]!.mesh.isOfferer(to: b) == false && room.members[b]!.mesh.isOfferer(to: a))
        room.members[a]!.mesh.abandon(b)
        room.pump()
        #expect(room.members[a]!.negotiations == 1)
        #expect(room.members[b]!.mesh.restart(a))
        room.pump()
        #expect(room.members[a]!.negotiations == 2 && room.members[b]!.negotiations == 2)
        #expect(room.members[a]!.controlling[b] == false)
        #expect(room.members[a]!.failures.isEmpty)
    }
}
