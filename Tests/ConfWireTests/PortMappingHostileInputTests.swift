import ConfCore
import ConfWire
import Testing

/// Every truncation and single-byte change of valid answers, and random datagrams, fed to the
/// session: it must never trap, and must report a mapping only for a datagram that is a valid
/// answer to what it asked.
@Suite struct PortMappingHostileInputTests {
    static let gateway = IPv4Address(192, 168, 1, 1)
    static let mapping = WantedMapping(.tcp, internalPort: 7373)

    /// A session with one TCP mapping asked for with PCP, and the request it sent.
    func pcpSession() throws -> (PortMappingSession, PCPMapRequest) {
        var random = SeededRandom(seed: 3)
        let session = PortMappingSession(configuration: .init(clientAddress: IPv4Address(192, 168, 1, 20), gateway: Self.gateway, mappings: [Self.mapping]),
                                         random: &random)
        session.handle(.start, now: .zero)
        guard case .send(let bytes) = session.pollOutput() else { throw Failure() }
        #expect(session.pollOutput() == nil)
        return (session, try PCPMapRequest(bytes: bytes))
    }

    /// A session with one TCP mapping in NAT-PMP, the public address already known.
    func natPMPSession() -> PortMappingSession {
        var random = SeededRandom(seed: 3)
        let session = PortMappingSession(configuration: .init(clientAddress: IPv4Address(192, 168, 1, 20), gateway: Self.gateway, mappings: [Self.mapping]),
                                         random: &random)
        session.handle(.start, now: .zero)
        session.handle(.received(NATPMPResponse(result: .unsupportedVersion, epochTime: 1, body: .headerOnly(requestOpcode: 1)).bytes, from: Self.gateway, port: 5351),
                       now: .zero)
        session.handle(.received(NATPMPResponse(result: .success, epochTime: 1, body: .publicAddress(IPv4Address(203, 0, 113, 7))).bytes, from: Self.gateway,
                                 port: 5351), now: .zero)
        while session.pollOutput() != nil {}
        return session
    }

    struct Failure: Error {}

    static func variants(of bytes: [UInt8]) -> [[UInt8]] {
        var variants = (0..<bytes.count).map { Array(bytes.prefix($0)) }
        for index in bytes.indices {
            for value in UInt8.min ... UInt8.max where value != bytes[index] {
                var changed = bytes
                changed[index] = value
                variants.append(changed)
            }
        }
        return variants
    }

    func events(_ session: PortMappingSession) -> [PortMappingEvent] {
        var events: [PortMappingEvent] = []
        while let output = session.pollOutput() {
            if case .event(let event) = output { events.append(event) }
        }
        return events
    }

    @Test func pcpAnswersChangedAnywhereMapOnlyWhenStillAValidAnswer() throws {
        let (_, request) = try pcpSession()
        let valid = PCPResponse(opcode: PCP.mapOpcode, result: .success, lifetime: 7200, epochTime: 9,
                                map: .init(nonce: request.nonce, transport: .tcp, internalPort: 7373, externalPort: 7373, externalAddress: IPv4Address(203, 0, 113, 7)))
        var mapped = 0
        for variant in Self.variants(of: valid.bytes) {
            let (session, _) = try pcpSession()
            session.handle(.received(variant, from: Self.gateway, port: 5351), now: .zero)
            let events = events(session)
            let parsed = try? PCPResponse(bytes: variant)
            let answersUs = parsed?.map?.nonce == request.nonce && parsed?.map?.transport == .tcp && parsed?.map?.internalPort == 7373
            let isGrant = answersUs && parsed?.result == .success && parsed!.lifetime > 0 && parsed!.map!.externalPort != 0
                && parsed!.map!.externalAddress?.scope == .public
            if case .mapped(let grant) = events.first {
                mapped += 1
                #expect(isGrant)
                #expect(grant.ports.first?.externalPort == parsed?.map?.externalPort)
                #expect(grant.externalAddress == parsed?.map?.externalAddress)
            } else {
                #expect(!isGrant, "\(variant)")
            }
            if variant.count < valid.bytes.count { #expect(events.isEmpty && session.ignoredDatagrams == 1) }
            if !events.isEmpty { #expect(answersUs || parsed?.result == .unsupportedVersion, "\(variant)") }
        }
        // The lifetime, epoch, reserved, port and address bytes can change and still make a grant.
        #expect(mapped > 1000)
    }

    @Test func natPMPAnswersChangedAnywhereMapOnlyWhenStillAValidAnswer() {
        let valid = NATPMPResponse(result: .success, epochTime: 2, body: .mapping(.tcp, internalPort: 7373, externalPort: 7373, lifetime: 7200))
        for variant in Self.variants(of: valid.bytes) {
            let session = natPMPSession()
            session.handle(.received(variant, from: Self.gateway, port: 5351), now: .zero)
            let events = events(session)
            let parsed = try? NATPMPResponse(bytes: variant)
            var isGrant = false
            if let parsed, parsed.result == .success, case .mapping(.tcp, 7373, let port, let lifetime) = parsed.body { isGrant = port != 0 && lifetime > 0 }
            let mapped = events.contains { if case .mapped = $0 { true } else { false } }
            #expect(mapped == isGrant, "\(variant)")
            if variant.count < valid.bytes.count { #expect(events.isEmpty) }
        }
    }

    @Test func randomDatagramsNeverMapAnything() throws {
        var random = SeededRandom(seed: 11)
        let headers: [[UInt8]] = [[], [2, 0x81], [2, 0x80], [0, 128], [0, 129], [0, 130]]
        for round in 0..<3000 {
            let header = headers[round % headers.count]
            let length = Int.random(in: 0...120, using: &random)
            let datagram = header + (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            let (pcp, _) = try pcpSession()
            let natPMP = natPMPSession()
            for session in [pcp, natPMP] {
                session.handle(.received(datagram, from: Self.gateway, port: 5351), now: .zero)
                session.handle(.timeout, now: .seconds(1))
                #expect(!events(session).contains { if case .mapped = $0 { true } else { false } })
            }
        }
    }
}
