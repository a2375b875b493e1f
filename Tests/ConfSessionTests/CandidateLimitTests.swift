import ConfSession
import ConfWire
import Testing

/// A peer cannot make us check thousands of addresses: at most `maxRemoteCandidates` per link.
@Suite struct CandidateLimitTests {
    static func candidate(_ n: Int) -> IceCandidate {
        try! IceCandidate.parse("candidate:\(n) 1 udp 2130706431 10.\(n / 65_536 % 256).\(n / 256 % 256).\(n % 256) 40000 typ host").get()
    }

    @Test func trickledCandidatesBeyondTheCapAreRefusedOnceWithAReason() {
        let room = SimulatedRoom()
        let a = room.join()
        let b = room.join()  // b offered to a
        for n in 0..<3_000 { room.gather(b, for: a, Self.candidate(n)) }
        #expect(room.members[a]!.remoteCandidates[b]?.count == PeerNegotiator.maxRemoteCandidates)
        #expect(room.members[a]!.remoteCandidates[b]?.last == Self.candidate(49))
        #expect(room.members[a]!.candidateLimits == [b])
        #expect(room.members[b]!.candidateLimits.isEmpty)
    }

    @Test func candidatesInTheSDPAndThoseHeldBeforeItCountToo() throws {
        let local = LocalEndpoint(iceUfrag: "abcd", icePwd: String(repeating: "x", count: 24), fingerprint: Fingerprint(bytes: Array(repeating: 1, count: 32)),
                                  role: .publisher, audioSSRC: 1, videoSSRC: 2)
        var offer = SDPNegotiation.offer(from: local, sessionID: 1)
        offer.media[0].candidates = (0..<40).map(Self.candidate)
        let answerer = PeerNegotiator(local: local, isOfferer: false, sessionID: 2)
        for n in 40..<1_000 { answerer.handle(.candidate(mid: "0", Self.candidate(n))) }  // before the offer: held, bounded
        answerer.handle(.offer(offer.serialized))
        var inSDP = 0, trickled = 0, limits = 0
        while let output = answerer.pollOutput() {
            switch output {
            case .negotiated(let link): inSDP = link.remoteCandidates.count
            case .remoteCandidate: trickled += 1
            case .candidateLimitReached: limits += 1
            default: break
            }
        }
        #expect(inSDP == 40 && trickled == 10 && limits == 1)
    }
}
