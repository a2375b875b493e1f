import ConfCore
import ConfRendezvous
import ConfWire
import Testing

/// Which STUN requests the rendezvous answers under floods, on a manual clock: one source's
/// flood, a flood from many forged sources, and the participants' reserved share
/// (docs/SECURITY.md, "STUN").
@Suite struct STUNAnswerBudgetTests {
    typealias Source = STUNAnswerBudget.Source
    let start = Instant(nanoseconds: 1_000_000_000)

    static func v4(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) -> Source { Source(address: [a, b, c, d])! }

    /// `flooders` sources, `perSecond` requests a second between them, for `seconds`; a client
    /// asking 5 times a second meanwhile. Returns the share of the client's requests answered
    /// and how many answers went out in all.
    func run(flooders: [Source], perSecond: Int, seconds: Int, client: Source, clientIsParticipant: Bool) -> (share: Double, answers: Int) {
        var budget = STUNAnswerBudget()
        var asked = 0, answered = 0, answers = 0
        let step = Duration.nanoseconds(Int64(1_000_000_000 / perSecond))
        var now = start
        for index in 0..<(perSecond * seconds) {
            if budget.admit(flooders[index % flooders.count], participant: false, now: now) { answers += 1 }
            if index % (perSecond / 5) == 0 {
                asked += 1
                if budget.admit(client, participant: clientIsParticipant, now: now) { answered += 1; answers += 1 }
            }
            now = now + step
        }
        return (Double(answered) / Double(asked), answers)
    }

    @Test(arguments: [20_000, 60_000])
    func oneSourcesFloodLeavesAnotherAnswered(perSecond: Int) {
        let result = run(flooders: [Self.v4(198, 51, 100, 7)], perSecond: perSecond, seconds: 10, client: Self.v4(203, 0, 113, 5),
                         clientIsParticipant: false)
        #expect(result.share == 1, "\(result)")
        // The flooder got its own budget's worth: 10 a second and its burst.
        #expect(result.answers <= 10 * 10 + 20 + 50, "\(result)")
    }

    @Test func aFloodFromForgedSourcesLeavesParticipantsAnswered() {
        // Every packet from another address: no per-source budget binds, the shared one does.
        let forged = (0..<60_000).map { (index: Int) -> Source in
            let bytes: [UInt8] = [10, UInt8(truncatingIfNeeded: index >> 16), UInt8(truncatingIfNeeded: index >> 8), UInt8(truncatingIfNeeded: index)]
            return Source(address: bytes)!
        }
        let participant = run(flooders: forged, perSecond: 60_000, seconds: 5, client: Self.v4(203, 0, 113, 5), clientIsParticipant: true)
        #expect(participant.share == 1, "\(participant)")
        // In all, never past the bound: the port floods nobody.
        #expect(participant.answers <= 2_000 * 5 + 500, "\(participant)")
        // A stranger shares the rest with the flood, as before.
        let stranger = run(flooders: forged, perSecond: 60_000, seconds: 5, client: Self.v4(203, 0, 113, 5), clientIsParticipant: false)
        #expect(stranger.share < 0.5, "\(stranger)")
    }

    @Test func from256SourcesEachIsHeldToItsOwnBudget() {
        let sources = (0..<256).map { Self.v4(198, 51, 100, UInt8($0)) }
        let result = run(flooders: sources, perSecond: 20_000, seconds: 10, client: Self.v4(203, 0, 113, 5), clientIsParticipant: false)
        // 256 sources at 10 a second is 2,560 a second: the shared 1,500 binds, the client still
        // gets well over the 95 % a flood of one source leaves it.
        #expect(result.share >= 0.5, "\(result)")
        #expect(result.answers <= 2_000 * 10 + 500, "\(result)")
    }

    @Test func anIPv6SlashSixtyFourIsOneSourceAndMappedIPv4IsIPv4() {
        let a = Source(text: "2001:db8:1:2::1"), b = Source(text: "2001:db8:1:2:ffff::9"), c = Source(text: "2001:db8:1:3::1")
        #expect(a == b && a != c)
        #expect(Source(text: "::ffff:192.0.2.1") == Source(text: "192.0.2.1"))
        #expect(Source(address: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 192, 0, 2, 1]) == Source(text: "192.0.2.1"))
        #expect(Source(text: "example.org") == nil && Source(address: [1, 2, 3]) == nil)
        var budget = STUNAnswerBudget()
        // Twenty from one /64 (its burst), then the 21st from another address of it is refused.
        var admitted = 0
        for index in 1...20 where budget.admit(Source(text: "2001:db8:1:2::\(index)")!, participant: false, now: start) { admitted += 1 }
        #expect(admitted == 20)
        let afterBurst = budget.admit(b!, participant: false, now: start), otherSixtyFour = budget.admit(c!, participant: false, now: start)
        #expect(!afterBurst && otherSixtyFour)
    }

    /// One address may be a whole office behind a NAT: once it holds a WebSocket open, it gets a
    /// participant's larger budget (50 a second, bursts of 100), not a stranger's 10.
    @Test func aParticipantsAddressHasALargerBudget() {
        var budget = STUNAnswerBudget()
        let office = Self.v4(198, 51, 100, 9), stranger = Self.v4(198, 51, 100, 10)
        var officeAnswered = 0, strangerAnswered = 0
        for _ in 0..<100 {
            if budget.admit(office, participant: true, now: start) { officeAnswered += 1 }
            if budget.admit(stranger, participant: false, now: start) { strangerAnswered += 1 }
        }
        #expect(officeAnswered == 100 && strangerAnswered == 20, "\(officeAnswered) \(strangerAnswered)")
    }

    @Test func quietSourcesAreForgottenAndTheTableIsBounded() {
        var limits = STUNAnswerBudget.Limits()
        limits.sources = 100
        var budget = STUNAnswerBudget(limits: limits)
        for index in 0..<1_000 { _ = budget.admit(Self.v4(10, 0, UInt8(index >> 8), UInt8(index & 0xFF)), participant: false, now: start) }
        #expect(budget.followed == 100)
        // Two seconds later each has its burst back: nothing is kept of them.
        _ = budget.admit(Self.v4(192, 0, 2, 1), participant: false, now: start + .seconds(3))
        #expect(budget.followed == 1)
    }

    @Test func participantsAreCountedByOpenConnection() {
        let participants = STUNParticipants()
        participants.opened("192.0.2.1")
        participants.opened("::ffff:192.0.2.1")
        participants.opened("not an address")
        #expect(participants.contains(Self.v4(192, 0, 2, 1)))
        participants.closed("192.0.2.1")
        #expect(participants.contains(Self.v4(192, 0, 2, 1)))
        participants.closed("192.0.2.1")
        #expect(!participants.contains(Self.v4(192, 0, 2, 1)))
        participants.closed("192.0.2.1")  // more closes than opens do not go negative
        participants.opened("192.0.2.1")
        #expect(participants.contains(Self.v4(192, 0, 2, 1)))
    }

    @Test func onlyTheShapeOfABindingRequestIsLookedAtBeforeTheBudget() {
        var request = [UInt8](repeating: 0, count: 20)
        request[1] = 0x01
        #expect(STUNBindingResponder.looksLikeBindingRequest(request))
        #expect(!STUNBindingResponder.looksLikeBindingRequest(request.dropLast()))
        #expect(!STUNBindingResponder.looksLikeBindingRequest(request + [0, 0, 0, 0]))  // length says 0
        var indication = request
        indication[1] = 0x11
        #expect(!STUNBindingResponder.looksLikeBindingRequest(indication))
        var withAttribute = request + [0, 0x24, 0, 0]
        withAttribute[3] = 4
        #expect(STUNBindingResponder.looksLikeBindingRequest(withAttribute))
        #expect(!STUNBindingResponder.looksLikeBindingRequest([UInt8](repeating: 0x16, count: 100)))  // DTLS, not STUN
    }
}
