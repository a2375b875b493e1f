import ConfCore
import ConfWire

/// A home router's port-mapping server for the session tests: reads the session's requests and
/// answers them as RFC 6887 and RFC 6886 say, as configured.
struct FakeGateway {
    enum Speaks { case pcp, natPMPOnly, silent }

    var speaks: Speaks
    /// A NAT-PMP-only router that does not even answer PCP with "unsupported version".
    var ignoresPCP = false
    var address = IPv4Address(192, 168, 1, 1)
    var externalAddress = IPv4Address(203, 0, 113, 7)
    /// Answer MAP requests with this error instead.
    var pcpRefusal: PCPResultCode?
    var natPMPMappingRefusal: NATPMPResultCode?
    var natPMPAddressResult = NATPMPResultCode.success
    /// What it grants per transport; the requested lifetime when absent.
    var lifetimes: [MappingTransport: UInt32] = [:]
    /// Added to the suggested external port (the port is taken).
    var portShift: UInt16 = 0
    /// When its mapping state began: the epoch time counts from here.
    var bootedAt = Instant.zero
    /// What it has mapped now: internal port and transport to external port.
    private(set) var table: [WantedMapping: UInt16] = [:]
    private(set) var requests: [[UInt8]] = []

    init(speaks: Speaks) { self.speaks = speaks }

    /// A restart: its mappings are gone and its epoch starts again.
    mutating func restart(at now: Instant) {
        bootedAt = now
        table = [:]
    }

    func epochTime(_ now: Instant) -> UInt32 { UInt32(now.since(bootedAt).nanosecondsClamped / 1_000_000_000) }

    mutating func answer(_ datagram: [UInt8], now: Instant) -> [UInt8]? {
        requests.append(datagram)
        switch speaks {
        case .silent: return nil
        case .pcp:
            guard let request = try? PCPMapRequest(bytes: datagram) else { return nil }
            return answerPCP(request, now: now).bytes
        case .natPMPOnly:
            if datagram.first == PCP.version {
                // RFC 6886 section 3.5: another version gets "unsupported version", the header alone.
                return ignoresPCP ? nil : NATPMPResponse(result: .unsupportedVersion, epochTime: epochTime(now), body: .headerOnly(requestOpcode: datagram[1])).bytes
            }
            guard let request = try? NATPMPRequest(bytes: datagram) else { return nil }
            return answerNATPMP(request, now: now).bytes
        }
    }

    private mutating func answerPCP(_ request: PCPMapRequest, now: Instant) -> PCPResponse {
        let key = WantedMapping(request.transport, internalPort: request.internalPort)
        var map = PCPResponse.Map(nonce: request.nonce, transport: request.transport, internalPort: request.internalPort,
                                  externalPort: request.suggestedExternalPort, externalAddress: request.suggestedExternalAddress)
        if let refusal = pcpRefusal { return PCPResponse(opcode: PCP.mapOpcode, result: refusal, lifetime: 30, epochTime: epochTime(now), map: map) }
        let lifetime = request.lifetime == 0 ? 0 : lifetimes[request.transport] ?? request.lifetime
        if lifetime == 0 {
            table[key] = nil
        } else {
            let port = table[key] ?? request.suggestedExternalPort &+ portShift
            table[key] = port
            map.externalPort = port
            map.externalAddress = externalAddress
        }
        return PCPResponse(opcode: PCP.mapOpcode, result: .success, lifetime: lifetime, epochTime: epochTime(now), map: map)
    }

    private mutating func answerNATPMP(_ request: NATPMPRequest, now: Instant) -> NATPMPResponse {
        switch request {
        case .publicAddress:
            let address = natPMPAddressResult == .success ? externalAddress : .unspecified
            return NATPMPResponse(result: natPMPAddressResult, epochTime: epochTime(now), body: .publicAddress(address))
        case .mapping(let transport, let internalPort, let suggested, let requested):
            let key = WantedMapping(transport, internalPort: internalPort)
            if let refusal = natPMPMappingRefusal {
                return NATPMPResponse(result: refusal, epochTime: epochTime(now), body: .mapping(transport, internalPort: internalPort, externalPort: 0, lifetime: 0))
            }
            let lifetime = requested == 0 ? 0 : lifetimes[transport] ?? requested
            var port: UInt16 = 0
            if lifetime == 0 {
                table[key] = nil
            } else {
                port = table[key] ?? suggested &+ portShift
                table[key] = port
            }
            return NATPMPResponse(result: .success, epochTime: epochTime(now), body: .mapping(transport, internalPort: internalPort, externalPort: port, lifetime: lifetime))
        }
    }
}

/// A session, the fake gateway and a manual clock: answers arrive at once, time moves to each
/// deadline in turn.
struct PortMappingHarness {
    static let client = IPv4Address(192, 168, 1, 20)
    static let wanted = [WantedMapping(.tcp, internalPort: 7373), WantedMapping(.udp, internalPort: 7373)]

    let session: PortMappingSession
    var gateway: FakeGateway
    let clock = ManualClock()
    private(set) var sent: [(at: Instant, bytes: [UInt8])] = []
    private(set) var events: [(at: Instant, event: PortMappingEvent)] = []

    init(_ gateway: FakeGateway, mappings: [WantedMapping] = PortMappingHarness.wanted, seed: UInt64 = 1) {
        var random = SeededRandom(seed: seed)
        self.gateway = gateway
        session = PortMappingSession(configuration: .init(clientAddress: Self.client, gateway: gateway.address, mappings: mappings), random: &random)
    }

    var now: Instant { clock.now() }
    var eventList: [PortMappingEvent] { events.map(\.event) }

    mutating func handle(_ input: PortMappingSession.Input) {
        session.handle(input, now: now)
        drain()
    }

    mutating func drain() {
        while let output = session.pollOutput() {
            switch output {
            case .send(let bytes):
                sent.append((now, bytes))
                if let reply = gateway.answer(bytes, now: now) {
                    session.handle(.received(reply, from: gateway.address, port: 5351), now: now)
                }
            case .event(let event): events.append((now, event))
            }
        }
    }

    /// Steps through the session's deadlines up to `end`, then sets the clock there.
    mutating func run(until end: Instant) {
        while let deadline = session.nextDeadline(), deadline <= end {
            clock.advance(by: deadline.since(now))
            handle(.timeout)
        }
        clock.advance(by: end.since(now))
    }

    mutating func run(for duration: Duration) { run(until: now + duration) }
}

extension Instant {
    static func seconds(_ seconds: Double) -> Instant { Instant(nanoseconds: UInt64(seconds * 1e9)) }
}
