import ConfWire
import Testing

/// The verdict follows what the routers said: a TCP mapping at a public address is `reachable`,
/// a router without a public address is `carrier-grade-nat`, and only when every way has
/// finished without a mapping is it `closed`.
@Suite struct ReachabilityJudgeTests {
    static let tcp = WantedMapping(.tcp, internalPort: 7373), udp = WantedMapping(.udp, internalPort: 7373)

    static func grant(_ kind: PortMappingProtocol, _ address: IPv4Address, tcpPort: UInt16 = 7373) -> PortMappingGrant {
        PortMappingGrant(mappingProtocol: kind, externalAddress: address, ports: [.init(wanted: tcp, externalPort: tcpPort), .init(wanted: udp, externalPort: 7373)],
                         lifetime: 7200)
    }

    func judged(_ facts: [ReachabilityJudge.Fact]) -> Reachability? {
        var judge = ReachabilityJudge(port: 7373, lanAddress: "192.168.1.10")
        for fact in facts { judge.add(fact) }
        return judge.verdict
    }

    @Test func aMappingIsReachableAtTheRoutersAddressAndPort() {
        let pcp = judged([.gateway(.mapped(Self.grant(.pcp, IPv4Address(203, 0, 113, 5), tcpPort: 40000)))])
        #expect(pcp?.verdict == .reachable && pcp?.via == .pcp && pcp?.address == "203.0.113.5:40000")
        #expect(judged([.gateway(.mapped(Self.grant(.natPMP, IPv4Address(203, 0, 113, 5))))])?.via == .natPMP)
        let upnp = judged([.gateway(.noGatewayAnswered), .upnpMapped(tcp: true, externalAddress: "203.0.113.5", externalPort: 7373)])
        #expect(upnp?.verdict == .reachable && upnp?.via == .upnp && upnp?.address == "203.0.113.5:7373")
    }

    @Test func aUDPMappingAloneDecidesNothing() {
        #expect(judged([.upnpMapped(tcp: false, externalAddress: "203.0.113.5", externalPort: 7373)]) == nil)
        #expect(judged([.upnpRefused(tcp: false, reason: "x"), .gateway(.noGatewayAnswered)]) == nil)
    }

    @Test func aRouterWithoutAPublicAddressIsCarrierGradeNAT() {
        let shared = judged([.gateway(.noPublicAddress(.pcp, externalAddress: IPv4Address(100, 64, 1, 2), result: nil))])
        #expect(shared?.verdict == .carrierGradeNAT && shared?.via == Self.none)
        #expect(shared?.advice.contains("100.64.1.2") == true && shared?.advice.contains("--server") == true)
        #expect(shared?.address == "192.168.1.10:7373")
        #expect(judged([.gateway(.noPublicAddress(.natPMP, externalAddress: nil, result: .natPMP(.networkFailure)))])?.verdict == .carrierGradeNAT)
        #expect(judged([.upnpNoExternalAddress])?.verdict == .carrierGradeNAT)
        #expect(judged([.upnpMapped(tcp: true, externalAddress: "10.1.2.3", externalPort: 7373)])?.verdict == .carrierGradeNAT)
        #expect(judged([.upnpMapped(tcp: true, externalAddress: "", externalPort: 7373)])?.verdict == .carrierGradeNAT)
        #expect(judged([.upnpMapped(tcp: true, externalAddress: "100.100.0.1", externalPort: 7373)])?.verdict == .carrierGradeNAT)
    }

    @Test func closedOnlyOnceEveryWayHasFinished() {
        #expect(judged([.gateway(.noGatewayAnswered)]) == nil)
        #expect(judged([.upnpSilent]) == nil)
        let silent = judged([.gateway(.noGatewayAnswered), .upnpSilent])
        #expect(silent?.verdict == .closed && silent?.via == ReachabilityJudgeTests.none)
        #expect(silent?.advice.contains("no router answered") == true && silent?.advice.contains("TCP and UDP port 7373 to 192.168.1.10") == true)
        let refused = judged([.gateway(.refused(.pcp(.notAuthorized), mapping: Self.tcp)), .upnpRefused(tcp: true, reason: "ConflictInMappingEntry")])
        #expect(refused?.verdict == .closed)
        #expect(refused?.advice.contains("ConflictInMappingEntry") == true && refused?.advice.contains("NOT_AUTHORIZED") == true, "\(refused?.advice ?? "")")
    }

    @Test func theFirstVerdictStands() {
        let first = judged([.gateway(.mapped(Self.grant(.pcp, IPv4Address(203, 0, 113, 5)))), .upnpNoExternalAddress, .upnpSilent])
        #expect(first?.verdict == .reachable)
        let cgn = judged([.upnpNoExternalAddress, .gateway(.mapped(Self.grant(.pcp, IPv4Address(203, 0, 113, 5))))])
        #expect(cgn?.verdict == .carrierGradeNAT)
    }

    static let none = Reachability.Via.none
}
