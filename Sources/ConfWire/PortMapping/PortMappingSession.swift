import ConfCore

/// Asks the default gateway to forward ports to this machine, with PCP (RFC 6887) and, when the
/// gateway does not speak it, NAT-PMP (RFC 6886); learns its external address, renews the
/// mappings and deletes them on request. Sans-IO.
///
/// Feed it `handle(_:now:)`, drain `pollOutput()` until nil, and call `handle(.timeout, now:)` at
/// `nextDeadline()`. Every `.send` goes in one UDP datagram to the gateway's port 5351; every
/// datagram that arrives on that socket comes back as `.received` with its source, and only the
/// gateway's port 5351 is listened to. It reads no clock and opens no socket; the PCP nonces come
/// from the generator given to `init`.
///
///     idle ─start─▶ PCP ──mapped──────────────────▶ mapped ◀─┐ renew at half the lifetime;
///                    │  ──UNSUPP_VERSION, or 2 s     │  │   │ epoch went back: map again
///                    │    without any answer──▶ NAT-PMP ─mapped─┘  └───┘
///                    │                          │
///                    ├──────────────────────────┴── refused, no public address, no answer ──▶ failed
///     any ─release─▶ releasing (lifetime-0 requests, 1 s at most) ─all answered or 1 s─▶ released
///
/// Both protocols start retransmitting at 250 ms and give up after 2 s (see `RetransmitSchedule`
/// for why that departs from RFC 6887 section 8.1.1). Mappings ask for 7200 s, NAT-PMP's
/// recommended lifetime (RFC 6886 section 3.3), which PCP servers commonly grant too.
///
/// Not handled: PCP ANNOUNCE and NAT-PMP address announcements sent to the multicast port 5350
/// are read only if the owner passes them on (they come from the gateway's port 5351); PCP
/// options (THIRD_PARTY, PREFER_FAILURE, FILTER) are never sent; IPv6 mappings.
///
/// Threading: none of its own; the owner calls it from one thread.
public final class PortMappingSession {
    public struct Configuration: Sendable {
        /// This machine's LAN address, as the gateway sees it (PCP's client address).
        public var clientAddress: IPv4Address
        /// The default gateway: requests go to it, and only its answers are read.
        public var gateway: IPv4Address
        public var mappings: [WantedMapping]
        /// Seconds each mapping is asked for.
        public var requestedLifetime: UInt32

        public init(clientAddress: IPv4Address, gateway: IPv4Address, mappings: [WantedMapping], requestedLifetime: UInt32 = 7200) {
            self.clientAddress = clientAddress
            self.gateway = gateway
            self.mappings = mappings
            self.requestedLifetime = requestedLifetime
        }
    }

    public enum Input: Sendable {
        case start
        /// A datagram that arrived, and where from.
        case received([UInt8], from: IPv4Address, port: UInt16)
        /// Delete every mapping (the app is leaving); `.released` follows within `releaseWindow`.
        case release
        case timeout
    }

    public enum Output: Equatable, Sendable {
        /// One UDP datagram for the gateway's port 5351.
        case send([UInt8])
        case event(PortMappingEvent)
    }

    public enum Phase: Equatable, Sendable {
        case idle
        case discovering(PortMappingProtocol)
        case mapped(PortMappingProtocol)
        case failed
        case releasing
        case released
    }

    /// The port the gateway listens and answers on: the same for both protocols (RFC 6887 section 19.1).
    public static let gatewayPort = PCP.serverPort
    public static let initialRetransmitInterval: Duration = .milliseconds(250)
    /// How long each protocol has to answer a request before it is given up.
    public static let answerWindow: Duration = .seconds(2)
    /// How long `.release` waits for the deletions to be answered.
    public static let releaseWindow: Duration = .seconds(1)

    public let configuration: Configuration
    public private(set) var phase = Phase.idle
    /// Datagrams dropped: from elsewhere than the gateway's port 5351, unreadable, or answering
    /// nothing asked (wrong nonce, port, opcode, or a duplicate).
    public private(set) var ignoredDatagrams = 0
    /// The latest grant reported with `.mapped`.
    public private(set) var grant: PortMappingGrant?

    /// What is known of each wanted mapping, in the configuration's order.
    private struct Slot {
        let wanted: WantedMapping
        let nonce: PCPNonce
        var granted: Granted?
        /// Whether a request for it went out with the current protocol (so release deletes it).
        var requested = false
    }

    private struct Granted {
        var externalPort: UInt16
        /// PCP gives it per mapping; NAT-PMP answers it apart (`natPMPAddress`).
        var externalAddress: IPv4Address?
        var lifetime: UInt32
        var expiresAt: Instant
        var renewAt: Instant
    }

    private enum RequestID: Hashable, Comparable {
        case publicAddress
        case mapping(Int)

        var mappingIndex: Int? {
            if case .mapping(let index) = self { return index }
            return nil
        }
    }

    private struct Pending {
        let bytes: [UInt8]
        var schedule: RetransmitSchedule
    }

    private var slots: [Slot]
    private var mappingProtocol = PortMappingProtocol.pcp
    private var pending: [RequestID: Pending] = [:]
    private var natPMPAddress: IPv4Address?
    private var epoch = GatewayEpoch(rule: .pcp)
    /// Whether any response has been read in the current protocol, and in the whole session.
    private var heardInProtocol = false
    private var heardAny = false
    private var releaseEndsAt: Instant?

    private var outputs: [Output] = []

    public init<R: RandomNumberGenerator>(configuration: Configuration, random: inout R) {
        self.configuration = configuration
        slots = configuration.mappings.map { Slot(wanted: $0, nonce: PCPNonce(using: &random)) }
    }

    // MARK: Driving

    public func handle(_ input: Input, now: Instant) {
        switch input {
        case .start:
            guard phase == .idle else { return }
            begin(.pcp, now: now)
        case .received(let bytes, let source, let port):
            guard source == configuration.gateway, port == Self.gatewayPort, phase != .idle, phase != .released,
                  received(bytes, now: now) else {
                ignoredDatagrams += 1
                return
            }
        case .release: release(now: now)
        case .timeout: timeout(now: now)
        }
    }

    /// The next thing to do, or nil when there is nothing until `nextDeadline()` or an input.
    public func pollOutput() -> Output? {
        outputs.isEmpty ? nil : outputs.removeFirst()  // a handful at most: no index to keep
    }

    /// When `handle(.timeout, now:)` is due next; nil when nothing is scheduled.
    public func nextDeadline() -> Instant? {
        var deadlines = pending.values.map(\.schedule.deadline)
        if case .mapped = phase {
            deadlines += slots.indices.filter { pending[.mapping($0)] == nil }.compactMap { slots[$0].granted?.renewAt }
        }
        return (deadlines + [releaseEndsAt].compactMap { $0 }).min()
    }

    // MARK: Requests

    private func begin(_ kind: PortMappingProtocol, now: Instant) {
        mappingProtocol = kind
        phase = .discovering(kind)
        epoch = GatewayEpoch(rule: kind == .pcp ? .pcp : .natPMP)
        heardInProtocol = false
        pending = [:]
        for index in slots.indices {
            slots[index].granted = nil
            slots[index].requested = false
        }
        if kind == .pcp, slots.isEmpty {
            begin(.natPMP, now: now)
            return
        }
        if kind == .natPMP { ask(.publicAddress, NATPMPRequest.publicAddress.bytes, until: now + Self.answerWindow, now: now) }
        for index in slots.indices { requestMapping(index, lifetime: configuration.requestedLifetime, until: now + Self.answerWindow, now: now) }
    }

    /// Asks for (lifetime > 0) or deletes (0) one mapping, suggesting what the gateway gave before.
    private func requestMapping(_ index: Int, lifetime: UInt32, until giveUpAt: Instant, now: Instant) {
        let slot = slots[index]
        let externalPort = slot.granted?.externalPort ?? slot.wanted.externalPort
        let bytes: [UInt8]
        switch mappingProtocol {
        case .pcp:
            bytes = PCPMapRequest(lifetime: lifetime, clientAddress: configuration.clientAddress, nonce: slot.nonce, transport: slot.wanted.transport,
                                  internalPort: slot.wanted.internalPort, suggestedExternalPort: externalPort,
                                  suggestedExternalAddress: slot.granted?.externalAddress ?? .unspecified).bytes
        case .natPMP:
            // RFC 6886 section 3.4: a deletion suggests port 0.
            bytes = NATPMPRequest.mapping(slot.wanted.transport, internalPort: slot.wanted.internalPort,
                                          suggestedExternalPort: lifetime == 0 ? 0 : externalPort, lifetime: lifetime).bytes
        }
        slots[index].requested = true
        ask(.mapping(index), bytes, until: giveUpAt, now: now)
    }

    private func ask(_ id: RequestID, _ bytes: [UInt8], until giveUpAt: Instant, now: Instant) {
        var request = Pending(bytes: bytes, schedule: RetransmitSchedule(start: now, initialInterval: Self.initialRetransmitInterval, giveUpAt: giveUpAt))
        if request.schedule.sendIfDue(now: now) { outputs.append(.send(bytes)) }
        pending[id] = request
    }

    // MARK: Time

    private func timeout(now: Instant) {
        if let end = releaseEndsAt, now >= end {
            finishRelease()
            return
        }
        let before = phase
        for id in pending.keys.sorted() where pending[id]?.schedule.isOver(at: now) == true {
            gaveUp(id, now: now)
            if phase != before { return }
        }
        for id in pending.keys.sorted() where pending[id]!.schedule.sendIfDue(now: now) {
            outputs.append(.send(pending[id]!.bytes))
        }
        guard case .mapped = phase else { return }
        for index in slots.indices where pending[.mapping(index)] == nil {
            guard let granted = slots[index].granted, now >= granted.renewAt else { continue }
            requestMapping(index, lifetime: configuration.requestedLifetime, until: granted.expiresAt, now: now)
        }
    }

    private func gaveUp(_ id: RequestID, now: Instant) {
        pending[id] = nil
        switch phase {
        case .releasing:
            if pending.isEmpty { finishRelease() }
        case .discovering(.pcp) where !heardInProtocol:
            begin(.natPMP, now: now)
        default:
            if case .mapping(let index) = id, let granted = slots[index].granted, now >= granted.expiresAt { slots[index].granted = nil }
            fail(heardAny ? .unanswered(mappingProtocol, mapping: id.mappingIndex.map { slots[$0].wanted }) : .noGatewayAnswered)
        }
    }

    private func fail(_ event: PortMappingEvent) {
        phase = .failed
        pending = [:]
        outputs.append(.event(event))
    }

    // MARK: Releasing

    private func release(now: Instant) {
        switch phase {
        case .releasing: return
        case .released, .idle:
            phase = .released
            outputs.append(.event(.released))
        case .discovering, .mapped, .failed:
            let silent = phase == .failed && !heardAny
            phase = .releasing
            pending = [:]
            let end = now + Self.releaseWindow
            // A gateway that never answered anything has nothing to delete: do not wait on it.
            for index in slots.indices where slots[index].requested && !silent {
                requestMapping(index, lifetime: 0, until: end, now: now)
            }
            if pending.isEmpty { finishRelease() } else { releaseEndsAt = end }
        }
    }

    private func finishRelease() {
        phase = .released
        pending = [:]
        releaseEndsAt = nil
        for index in slots.indices { slots[index].granted = nil }
        outputs.append(.event(.released))
    }

    // MARK: Answers

    /// Reads a datagram from the gateway; false when it answers nothing asked.
    private func received(_ bytes: [UInt8], now: Instant) -> Bool {
        if mappingProtocol == .pcp {
            if let response = try? PCPResponse(bytes: bytes) { return received(response, now: now) }
            // A NAT-PMP gateway answers a version-2 request in its own format, result 1
            // (RFC 6886 section 3.5, RFC 6887 section 9).
            if phase == .discovering(.pcp), let response = try? NATPMPResponse(bytes: bytes), response.result == .unsupportedVersion {
                heardAny = true
                begin(.natPMP, now: now)
                return true
            }
            return false
        }
        guard let response = try? NATPMPResponse(bytes: bytes) else { return false }
        return received(response, now: now)
    }

    private func received(_ response: PCPResponse, now: Instant) -> Bool {
        if response.result == .unsupportedVersion, phase == .discovering(.pcp) {
            heardAny = true
            begin(.natPMP, now: now)
            return true
        }
        if response.opcode == PCP.announceOpcode {
            guard response.result == .success, phase != .releasing else { return false }
            heard(epochTime: response.epochTime, now: now)
            return true
        }
        guard let map = response.map, let index = slots.firstIndex(where: { $0.nonce == map.nonce }),
              slots[index].wanted.transport == map.transport, slots[index].wanted.internalPort == map.internalPort,
              pending[.mapping(index)] != nil else { return false }
        if phase == .releasing { return answeredDeletion(index) }
        switch response.result {
        case .success:
            guard response.lifetime > 0, map.externalPort != 0, let address = map.externalAddress else { return false }
            heard(epochTime: response.epochTime, now: now)
            answered(index, externalPort: map.externalPort, externalAddress: address, lifetime: response.lifetime, now: now)
        case .networkFailure, .cannotProvideExternal:
            heard(epochTime: response.epochTime, now: now)
            fail(.noPublicAddress(.pcp, externalAddress: nil, result: .pcp(response.result)))
        default:
            heard(epochTime: response.epochTime, now: now)
            fail(.refused(.pcp(response.result), mapping: slots[index].wanted))
        }
        return true
    }

    private func received(_ response: NATPMPResponse, now: Instant) -> Bool {
        switch response.body {
        case .publicAddress(let address):
            // Asked for, or the gateway's announcement of a new address (section 3.2.1).
            guard pending[.publicAddress] != nil || phase == .mapped(.natPMP) else { return false }
            heard(epochTime: response.epochTime, now: now)
            pending[.publicAddress] = nil
            switch response.result {
            case .success where address.scope == .public:
                natPMPAddress = address
                if case .mapped = phase { reportGrant() } else { completeIfGranted() }
            case .success, .networkFailure:
                fail(.noPublicAddress(.natPMP, externalAddress: address, result: response.result == .success ? nil : .natPMP(response.result)))
            default:
                fail(.refused(.natPMP(response.result), mapping: nil))
            }
        case .mapping(let transport, let internalPort, let externalPort, let lifetime):
            guard let index = slots.indices.first(where: { slots[$0].wanted.transport == transport && slots[$0].wanted.internalPort == internalPort }),
                  pending[.mapping(index)] != nil else { return false }
            if phase == .releasing { return answeredDeletion(index) }
            if response.result == .success, lifetime == 0 || externalPort == 0 { return false }
            heard(epochTime: response.epochTime, now: now)
            switch response.result {
            case .success: answered(index, externalPort: externalPort, externalAddress: nil, lifetime: lifetime, now: now)
            case .networkFailure: fail(.noPublicAddress(.natPMP, externalAddress: nil, result: .natPMP(response.result)))
            default: fail(.refused(.natPMP(response.result), mapping: slots[index].wanted))
            }
        case .headerOnly(let requestOpcode):
            // An error the gateway could not tie to its request's fields: it refuses every
            // request of that opcode.
            let asked = pending.keys.filter { id in
                id.mappingIndex.map { slots[$0].wanted.transport.natPMPOpcode == requestOpcode } ?? (requestOpcode == 0)
            }
            // "Unsupported version" answers a PCP request sent before the fallback: our NAT-PMP
            // requests are version 0.
            guard response.result != .success, response.result != .unsupportedVersion, !asked.isEmpty else { return false }
            if phase == .releasing {
                for id in asked { pending[id] = nil }
                if pending.isEmpty { finishRelease() }
                return true
            }
            heard(epochTime: response.epochTime, now: now)
            fail(.refused(.natPMP(response.result), mapping: asked.count == 1 ? asked[0].mappingIndex.map { slots[$0].wanted } : nil))
        }
        return true
    }

    private func answeredDeletion(_ index: Int) -> Bool {
        pending[.mapping(index)] = nil
        slots[index].granted = nil
        if pending.isEmpty { finishRelease() }
        return true
    }

    private func answered(_ index: Int, externalPort: UInt16, externalAddress: IPv4Address?, lifetime: UInt32, now: Instant) {
        pending[.mapping(index)] = nil
        let seconds = Duration.seconds(Int64(lifetime))
        slots[index].granted = Granted(externalPort: externalPort, externalAddress: externalAddress, lifetime: lifetime,
                                       expiresAt: now + seconds, renewAt: now + seconds / 2)
        if case .mapped = phase { reportGrant() } else { completeIfGranted() }
    }

    /// Once every mapping (and with NAT-PMP the external address) is known: mapped.
    private func completeIfGranted() {
        guard case .discovering(let kind) = phase, slots.allSatisfy({ $0.granted != nil }), kind == .pcp || natPMPAddress != nil else { return }
        phase = .mapped(kind)
        reportGrant()
    }

    /// Reports the grant when it is new or its address or ports changed; a non-public address ends it.
    private func reportGrant() {
        guard case .mapped(let kind) = phase, slots.allSatisfy({ $0.granted != nil }),
              let address = kind == .pcp ? slots.first?.granted?.externalAddress : natPMPAddress else { return }
        guard address.scope == .public else {
            fail(.noPublicAddress(kind, externalAddress: address, result: nil))
            return
        }
        let ports = slots.map { PortMappingGrant.MappedPort(wanted: $0.wanted, externalPort: $0.granted!.externalPort) }
        let lifetime = slots.map { $0.granted!.lifetime }.min() ?? configuration.requestedLifetime
        let new = PortMappingGrant(mappingProtocol: kind, externalAddress: address, ports: ports, lifetime: lifetime)
        defer { grant = new }
        guard grant?.externalAddress != address || grant?.ports != ports else { return }
        outputs.append(.event(.mapped(new)))
    }

    /// Every valid answer's epoch: when the gateway lost its state, whatever it had granted is
    /// asked for again at once (RFC 6887 section 8.5, RFC 6886 section 3.6).
    private func heard(epochTime: UInt32, now: Instant) {
        heardAny = true
        heardInProtocol = true
        guard epoch.lostState(epochTime: epochTime, now: now), phase != .failed else { return }
        if mappingProtocol == .natPMP, pending[.publicAddress] == nil {
            ask(.publicAddress, NATPMPRequest.publicAddress.bytes, until: now + Self.answerWindow, now: now)
        }
        for index in slots.indices where slots[index].granted != nil && pending[.mapping(index)] == nil {
            requestMapping(index, lifetime: configuration.requestedLifetime, until: now + Self.answerWindow, now: now)
        }
    }
}
