import ConfCore
import ConfWire
import Testing

/// `conf check`'s questions to the network on a manual clock, the answers as servers (and a
/// hostile network) give them, and what is concluded.
struct ConnectivityProbeTests {
    struct Clock { var now = Instant(nanoseconds: 1_000_000_000) }

    /// A Binding success for `request` naming `address`.
    static func answer(_ request: [UInt8], _ address: STUNTransportAddress) throws -> [UInt8] {
        let message = try STUNMessage.parse(request)
        return STUNMessage(.successResponse, .binding, transactionID: message.transactionID,
                           attributes: [STUNAttribute(.xorMappedAddress, address.attributeValue(xorWith: message.transactionID))]).bytes
    }

    static func sent(_ probe: ConnectivityProbe) -> [(bytes: [UInt8], to: Int)] {
        var out: [(bytes: [UInt8], to: Int)] = []
        while case .send(let bytes, let to)? = probe.pollOutput() { out.append((bytes, to)) }
        return out
    }

    @Test func twoServersThatSeeOnePortMeanHolePunchingWorks() throws {
        var random = SeededRandom(seed: 3)
        var clock = Clock()
        let probe = ConnectivityProbe(stunServers: 2, turnServers: 1, random: &random)
        probe.start(now: clock.now)
        let first = Self.sent(probe)
        #expect(first.map(\.to) == [0, 1, 2])
        let outside = try #require(STUNTransportAddress(address: [203, 0, 113, 7], port: 40_000))
        probe.received(try Self.answer(first[0].bytes, outside), from: 0)
        // The TURN server refuses without credentials: it answered, so it is there.
        let allocate = try STUNMessage.parse(first[2].bytes)
        #expect(allocate.method == .allocate && allocate.value(of: .requestedTransport) == [17, 0, 0, 0])
        probe.received(STUNMessage(.errorResponse, .allocate, transactionID: allocate.transactionID).bytes, from: 2)
        #expect(!probe.isDone)
        // The second server's answer is lost once; its request goes again 500 ms later.
        clock.now = clock.now + .milliseconds(500)
        probe.timeout(now: clock.now)
        let again = Self.sent(probe)
        #expect(again.map(\.to) == [1])
        probe.received(try Self.answer(again[0].bytes, outside), from: 1)
        #expect(probe.isDone && probe.turnAnswered == [true])
        let verdict = ConnectivityVerdict(mapped: probe.mappedAddresses, local: ["192.168.1.10"], forwarded: false)
        #expect(verdict.nat == .endpointIndependent && verdict.verdict == .direct && verdict.mappedAddress == "203.0.113.7:40000")
    }

    @Test func aPortPerDestinationNeedsARelayUnlessThePortIsForwarded() throws {
        let a = STUNTransportAddress(address: [203, 0, 113, 7], port: 40_000), b = STUNTransportAddress(address: [203, 0, 113, 7], port: 40_001)
        let symmetric = ConnectivityVerdict(mapped: [a, b], local: ["192.168.1.10"], forwarded: false)
        #expect(symmetric.nat == .perDestination && symmetric.verdict == .relay)
        #expect(ConnectivityVerdict(mapped: [a, b], local: ["192.168.1.10"], forwarded: true).verdict == .direct)
        #expect(ConnectivityVerdict(mapped: [a], local: ["192.168.1.10"], forwarded: false).nat == .unknown)
        #expect(ConnectivityVerdict(mapped: [a, b], local: ["203.0.113.7"], forwarded: false).nat == .none)
        let silent = ConnectivityVerdict(mapped: [nil, nil], local: ["192.168.1.10"], forwarded: false)
        #expect(silent.nat == .noAnswer && silent.verdict == .unknown && silent.mappedAddress == nil)
    }

    /// Three tries, 0.5 s then 1 s apart, then 1.5 s for the last answer: done after 3 s.
    /// What is not an answer to this probe's question (another transaction, a request, noise,
    /// an answer from the wrong server) changes nothing.
    @Test func silenceAndNoiseEndAsNoAnswerAfterThreeTries() throws {
        var random = SeededRandom(seed: 4)
        var clock = Clock()
        let probe = ConnectivityProbe(stunServers: 1, turnServers: 1, random: &random)
        probe.start(now: clock.now)
        let first = Self.sent(probe)
        let outside = try #require(STUNTransportAddress(address: [198, 51, 100, 1], port: 9))
        let other = STUNBindingRequest(transactionID: STUNTransactionID(using: &random))
        for noise in [[UInt8](repeating: 0, count: 20), [0x00, 0x01], first[0].bytes, try Self.answer(other.bytes, outside)] {
            probe.received(noise, from: 0)
            probe.received(noise, from: 1)
        }
        probe.received(try Self.answer(first[0].bytes, outside), from: 1)  // the STUN answer from the TURN server's address
        var sends = first.count
        for wait in [500, 1000, 1500] {
            #expect(!probe.isDone)
            clock.now = clock.now + .milliseconds(wait)
            probe.timeout(now: clock.now)
            sends += Self.sent(probe).count
        }
        #expect(probe.isDone && sends == 6 && probe.nextDeadline() == nil)
        #expect(probe.stunResults == [.noAnswer] && probe.turnAnswered == [false])
    }
}
