import ConfCore
import ConfWire
import Testing

@Suite struct PortMappingSessionTests {
    let tcp = WantedMapping(.tcp, internalPort: 7373)
    let udp = WantedMapping(.udp, internalPort: 7373)

    func grant(_ kind: PortMappingProtocol, port shift: UInt16 = 0, lifetime: UInt32 = 600) -> PortMappingEvent {
        .mapped(PortMappingGrant(mappingProtocol: kind, externalAddress: IPv4Address(203, 0, 113, 7),
                                 ports: [.init(wanted: tcp, externalPort: 7373 + shift), .init(wanted: udp, externalPort: 7373 + shift)], lifetime: lifetime))
    }

    /// A harness whose gateway grants these lifetimes, started.
    func started(_ speaks: FakeGateway.Speaks, lifetime tcpLifetime: UInt32, udp udpLifetime: UInt32? = nil) -> PortMappingHarness {
        var gateway = FakeGateway(speaks: speaks)
        gateway.lifetimes = [.tcp: tcpLifetime, .udp: udpLifetime ?? tcpLifetime]
        var harness = PortMappingHarness(gateway)
        harness.handle(.start)
        return harness
    }

    @Test func mapsBothPortsWithPCP() throws {
        var harness = PortMappingHarness(FakeGateway(speaks: .pcp))
        harness.handle(.start)
        #expect(harness.eventList == [grant(.pcp)])
        #expect(harness.session.phase == .mapped(.pcp))
        let requests = try harness.sent.map { try PCPMapRequest(bytes: $0.bytes) }
        #expect(requests.map(\.transport) == [.tcp, .udp])
        #expect(requests.allSatisfy { $0.lifetime == 600 && $0.clientAddress == PortMappingHarness.client && $0.suggestedExternalPort == 7373 })
        #expect(requests[0].nonce != requests[1].nonce)
        #expect(harness.gateway.table == [tcp: 7373, udp: 7373])
    }

    /// What a later process sends to delete these mappings if this one dies first: each granted
    /// mapping's request with lifetime 0, PCP's with the mapping's own nonce.
    @Test func theDeletionsCarryEachMappingsNonceAndLifetimeZero() throws {
        var harness = PortMappingHarness(FakeGateway(speaks: .pcp))
        #expect(harness.session.deletions.isEmpty)
        harness.handle(.start)
        let asked = try harness.sent.map { try PCPMapRequest(bytes: $0.bytes) }
        let deletions = try harness.session.deletions.map { try PCPMapRequest(bytes: $0) }
        #expect(deletions.map(\.lifetime) == [0, 0])
        #expect(deletions.map(\.nonce) == asked.map(\.nonce) && deletions.map(\.transport) == [.tcp, .udp])
        var natPMP = PortMappingHarness(FakeGateway(speaks: .natPMPOnly))
        natPMP.handle(.start)
        #expect(try natPMP.session.deletions.map { try NATPMPRequest(bytes: $0) } == [
            .mapping(.tcp, internalPort: 7373, suggestedExternalPort: 0, lifetime: 0), .mapping(.udp, internalPort: 7373, suggestedExternalPort: 0, lifetime: 0),
        ])
    }

    @Test func reportsThePortsTheRouterGaveInstead() {
        var gateway = FakeGateway(speaks: .pcp)
        gateway.portShift = 1000
        var harness = PortMappingHarness(gateway)
        harness.handle(.start)
        #expect(harness.eventList == [grant(.pcp, port: 1000)])
    }

    @Test func fallsBackToNATPMPWhenTheRouterAnswersUnsupportedVersion() throws {
        var harness = PortMappingHarness(FakeGateway(speaks: .natPMPOnly))
        harness.handle(.start)
        #expect(harness.eventList == [grant(.natPMP)])
        #expect(harness.events.first?.at == .zero)
        #expect(harness.sent.map { $0.bytes[0] } == [2, 2, 0, 0, 0])
        #expect(try NATPMPRequest(bytes: harness.sent[2].bytes) == .publicAddress)
        #expect(try NATPMPRequest(bytes: harness.sent[3].bytes) == .mapping(.tcp, internalPort: 7373, suggestedExternalPort: 7373, lifetime: 600))
    }

    @Test func fallsBackToNATPMPAfterTwoSecondsOfPCPSilence() {
        var gateway = FakeGateway(speaks: .natPMPOnly)
        gateway.ignoresPCP = true
        var harness = PortMappingHarness(gateway)
        harness.handle(.start)
        harness.run(for: .seconds(10))
        #expect(harness.eventList == [grant(.natPMP)])
        #expect(harness.events.first?.at == .seconds(2))
        // Each PCP request at 0, 0.25, 0.75 and 1.75 s.
        #expect(harness.sent.filter { $0.bytes[0] == 2 }.map(\.at) == [0, 0, 0.25, 0.25, 0.75, 0.75, 1.75, 1.75].map { .seconds($0) })
    }

    @Test func givesUpWhenNoGatewayAnswers() {
        var harness = PortMappingHarness(FakeGateway(speaks: .silent))
        harness.handle(.start)
        harness.run(for: .seconds(60))
        #expect(harness.eventList == [.noGatewayAnswered])
        #expect(harness.events.first?.at == .seconds(4))
        #expect(harness.sent.count == 2 * 4 + 3 * 4)
        #expect(harness.sent.last?.at == .seconds(3.75))
        #expect(harness.session.phase == .failed)
        #expect(harness.session.nextDeadline() == nil)
    }

    @Test func reportsAPCPRefusalWithItsCode() {
        var gateway = FakeGateway(speaks: .pcp)
        gateway.pcpRefusal = .notAuthorized
        var harness = PortMappingHarness(gateway)
        harness.handle(.start)
        #expect(harness.eventList == [.refused(.pcp(.notAuthorized), mapping: tcp)])
        if case .refused(let result, _) = harness.eventList.first {
            #expect(result.description == "PCP NOT_AUTHORIZED (2): the router does not allow this client to map ports")
        }
        #expect(harness.session.phase == .failed)
    }

    @Test func reportsANATPMPRefusalWithItsCode() {
        var gateway = FakeGateway(speaks: .natPMPOnly)
        gateway.natPMPMappingRefusal = .outOfResources
        var harness = PortMappingHarness(gateway)
        harness.handle(.start)
        #expect(harness.eventList == [.refused(.natPMP(.outOfResources), mapping: tcp)])
    }

    @Test func pcpNetworkFailureMeansNoPublicAddress() {
        for code in [PCPResultCode.networkFailure, .cannotProvideExternal] {
            var gateway = FakeGateway(speaks: .pcp)
            gateway.pcpRefusal = code
            var harness = PortMappingHarness(gateway)
            harness.handle(.start)
            #expect(harness.eventList == [.noPublicAddress(.pcp, externalAddress: nil, result: .pcp(code))])
        }
    }

    @Test func aSharedOrPrivateExternalAddressMeansNoPublicAddress() {
        for (speaks, address) in [(FakeGateway.Speaks.pcp, IPv4Address(100, 64, 1, 2)), (.natPMPOnly, IPv4Address(100, 64, 1, 2)),
                                  (.pcp, IPv4Address(10, 0, 0, 138)), (.natPMPOnly, IPv4Address(192, 168, 0, 1))] {
            var gateway = FakeGateway(speaks: speaks)
            gateway.externalAddress = address
            var harness = PortMappingHarness(gateway)
            harness.handle(.start)
            let kind: PortMappingProtocol = speaks == .pcp ? .pcp : .natPMP
            #expect(harness.eventList == [.noPublicAddress(kind, externalAddress: address, result: nil)], "\(address)")
            #expect(harness.session.grant == nil)
        }
    }

    @Test func natPMPNetworkFailureWithNoAddressMeansNoPublicAddress() {
        var gateway = FakeGateway(speaks: .natPMPOnly)
        gateway.natPMPAddressResult = .networkFailure
        var harness = PortMappingHarness(gateway)
        harness.handle(.start)
        #expect(harness.eventList == [.noPublicAddress(.natPMP, externalAddress: .unspecified, result: .natPMP(.networkFailure))])
    }

    @Test func renewsEachMappingAtHalfItsLifetimeWithTheSameNonce() throws {
        var harness = started(.pcp, lifetime: 600)
        #expect(harness.eventList == [grant(.pcp, lifetime: 600)])
        #expect(harness.session.nextDeadline() == .seconds(300))
        harness.run(until: .seconds(299.9))
        #expect(harness.sent.count == 2)
        harness.run(until: .seconds(300))
        #expect(harness.sent.count == 4)
        let first = try harness.sent[0...1].map { try PCPMapRequest(bytes: $0.bytes) }
        let renewal = try harness.sent[2...3].map { try PCPMapRequest(bytes: $0.bytes) }
        #expect(renewal.map(\.nonce) == first.map(\.nonce))
        #expect(renewal.allSatisfy { $0.suggestedExternalAddress == IPv4Address(203, 0, 113, 7) && $0.suggestedExternalPort == 7373 })
        harness.run(until: .seconds(1000))
        #expect(harness.sent.map(\.at) == [0, 0, 300, 300, 600, 600, 900, 900].map { .seconds($0) })
        #expect(harness.eventList.count == 1)  // the same ports: nothing new to report
        #expect(harness.session.phase == .mapped(.pcp))
    }

    @Test func renewsNATPMPMappingsToo() throws {
        var harness = started(.natPMPOnly, lifetime: 120)
        harness.run(until: .seconds(61))
        let renewals = harness.sent.filter { $0.at == .seconds(60) }
        #expect(try renewals.map { try NATPMPRequest(bytes: $0.bytes) } == [
            .mapping(.tcp, internalPort: 7373, suggestedExternalPort: 7373, lifetime: 600), .mapping(.udp, internalPort: 7373, suggestedExternalPort: 7373, lifetime: 600),
        ])
    }

    @Test func aRenewalNeverAnsweredEndsWhenTheMappingDoes() {
        var harness = started(.pcp, lifetime: 100)
        harness.gateway.speaks = .silent
        harness.run(until: .seconds(200))
        #expect(harness.eventList.dropFirst() == [.unanswered(.pcp, mapping: tcp)])
        #expect(harness.events.last?.at == .seconds(100))
    }

    @Test func aGatewayRestartSeenInAnAnswerRemapsEverythingAtOnce() throws {
        var harness = started(.pcp, lifetime: 600, udp: 7200)
        harness.run(until: .seconds(100))
        harness.gateway.restart(at: .seconds(100))
        #expect(harness.gateway.table.isEmpty)
        // TCP's renewal at 300 s meets an epoch of 200 s: UDP is mapped again then, not at 3600 s.
        harness.run(until: .seconds(300))
        let at300 = try harness.sent.filter { $0.at == .seconds(300) }.map { try PCPMapRequest(bytes: $0.bytes).transport }
        #expect(at300 == [.tcp, .udp])
        #expect(harness.gateway.table == [tcp: 7373, udp: 7373])
        #expect(harness.session.phase == .mapped(.pcp))
    }

    @Test func aNATPMPRestartAlsoAsksForThePublicAddressAgain() throws {
        var harness = started(.natPMPOnly, lifetime: 600, udp: 7200)
        harness.run(until: .seconds(250))
        harness.gateway.restart(at: .seconds(250))
        harness.run(until: .seconds(300))
        let at300 = try harness.sent.filter { $0.at == .seconds(300) }.map { try NATPMPRequest(bytes: $0.bytes) }
        #expect(at300.count == 3)
        #expect(at300.contains(.publicAddress))
        #expect(harness.gateway.table.count == 2)
    }

    @Test func anEpochThatKeepsTimeDoesNotRemap() {
        var harness = started(.pcp, lifetime: 600, udp: 7200)
        harness.run(until: .seconds(301))
        #expect(harness.sent.filter { $0.at == .seconds(300) }.count == 1)
    }

    @Test func releaseDeletesEveryMappingAndCompletes() throws {
        var harness = PortMappingHarness(FakeGateway(speaks: .pcp))
        harness.handle(.start)
        harness.run(until: .seconds(10))
        harness.handle(.release)
        #expect(harness.eventList.last == .released)
        #expect(harness.events.last?.at == .seconds(10))
        let deletions = try harness.sent.suffix(2).map { try PCPMapRequest(bytes: $0.bytes) }
        #expect(deletions.map(\.lifetime) == [0, 0])
        #expect(harness.gateway.table.isEmpty)
        #expect(harness.session.phase == .released)
        #expect(harness.session.nextDeadline() == nil)
    }

    @Test func releaseOfNATPMPMappingsSuggestsPortZero() throws {
        var harness = PortMappingHarness(FakeGateway(speaks: .natPMPOnly))
        harness.handle(.start)
        harness.handle(.release)
        #expect(try harness.sent.suffix(2).map { try NATPMPRequest(bytes: $0.bytes) } == [
            .mapping(.tcp, internalPort: 7373, suggestedExternalPort: 0, lifetime: 0), .mapping(.udp, internalPort: 7373, suggestedExternalPort: 0, lifetime: 0),
        ])
        #expect(harness.gateway.table.isEmpty)
        #expect(harness.eventList.last == .released)
    }

    @Test func releaseGivesUpAfterOneSecondWhenUnanswered() {
        var harness = PortMappingHarness(FakeGateway(speaks: .pcp))
        harness.handle(.start)
        harness.gateway.speaks = .silent
        harness.run(until: .seconds(5))
        harness.handle(.release)
        harness.run(until: .seconds(60))
        #expect(harness.eventList.last == .released)
        #expect(harness.events.last?.at == .seconds(6))
        #expect(harness.sent.filter { $0.at >= .seconds(5) }.map(\.at) == [5, 5, 5.25, 5.25, 5.75, 5.75].map { .seconds($0) })
    }

    @Test func releaseWithNothingToDeleteCompletesAtOnce() {
        var idle = PortMappingHarness(FakeGateway(speaks: .pcp))
        idle.handle(.release)
        #expect(idle.eventList == [.released])
        #expect(idle.sent.isEmpty)

        var silent = PortMappingHarness(FakeGateway(speaks: .silent))
        silent.handle(.start)
        silent.run(until: .seconds(10))
        let before = silent.sent.count
        silent.handle(.release)
        #expect(silent.eventList == [.noGatewayAnswered, .released])
        #expect(silent.sent.count == before)
        silent.handle(.release)
        #expect(silent.eventList.last == .released)
    }

    @Test func ignoresAnswersFromElsewhereOrWithAnotherNonce() throws {
        var harness = PortMappingHarness(FakeGateway(speaks: .silent))
        harness.handle(.start)
        let request = try PCPMapRequest(bytes: harness.sent[0].bytes)
        var answer = PCPResponse(opcode: PCP.mapOpcode, result: .success, lifetime: 7200, epochTime: 5,
                                 map: .init(nonce: request.nonce, transport: .tcp, internalPort: 7373, externalPort: 7373, externalAddress: IPv4Address(203, 0, 113, 7)))
        let session = harness.session
        session.handle(.received(answer.bytes, from: IPv4Address(192, 168, 1, 66), port: 5351), now: .zero)
        session.handle(.received(answer.bytes, from: harness.gateway.address, port: 5350), now: .zero)
        var other = answer
        other.map?.nonce = PCPNonce(request.nonce.bytes.map { $0 ^ 1 })!
        session.handle(.received(other.bytes, from: harness.gateway.address, port: 5351), now: .zero)
        other = answer
        other.map?.internalPort = 7374
        session.handle(.received(other.bytes, from: harness.gateway.address, port: 5351), now: .zero)
        other = answer
        other.map?.transport = .udp  // the TCP mapping's nonce on a UDP answer
        session.handle(.received(other.bytes, from: harness.gateway.address, port: 5351), now: .zero)
        #expect(session.ignoredDatagrams == 5)
        #expect(session.pollOutput() == nil)
        #expect(session.phase == .discovering(.pcp))

        // The real answers, then one of them again.
        session.handle(.received(answer.bytes, from: harness.gateway.address, port: 5351), now: .zero)
        answer.map = .init(nonce: try PCPMapRequest(bytes: harness.sent[1].bytes).nonce, transport: .udp, internalPort: 7373, externalPort: 7373,
                           externalAddress: IPv4Address(203, 0, 113, 7))
        session.handle(.received(answer.bytes, from: harness.gateway.address, port: 5351), now: .zero)
        #expect(session.pollOutput() == .event(grant(.pcp, lifetime: 7200)))
        session.handle(.received(answer.bytes, from: harness.gateway.address, port: 5351), now: .zero)
        #expect(session.ignoredDatagrams == 6)
    }

    @Test func noncesComeFromTheInjectedGenerator() throws {
        func nonce(seed: UInt64) throws -> PCPNonce {
            var harness = PortMappingHarness(FakeGateway(speaks: .silent), seed: seed)
            harness.handle(.start)
            return try PCPMapRequest(bytes: harness.sent[0].bytes).nonce
        }
        #expect(try nonce(seed: 7) == nonce(seed: 7))
        #expect(try nonce(seed: 7) != nonce(seed: 8))
    }
}
