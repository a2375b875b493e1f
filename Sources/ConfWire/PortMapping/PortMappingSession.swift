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
/// for why that departs from RFC 6887 section 8.1.1). Mappings ask for 600 s and are renewed at
/// half the lifetime granted, so that a host killed before it could delete them (SIGKILL, a
/// crash, a power cut) leaves its door open for minutes, not the two hours NAT-PMP recommends
/// (RFC 6886 section 3.3): a renewal every five minutes costs one datagram each way.
///
/// Not handled: PCP ANNOUNCE and NAT-PMP address announcements sent to the multicast port 5350
/// are read only if the owner passes them on (they come from the gateway's port 5351); PCP
/// options (THIRD_PARTY, PREFER_FAILURE, FILTER) are never sent; IPv6 mappings.
///
/// Threading: none of its own; the owner calls it from one thread.
public final class PortMappingSession {
    /// Seconds a mapping is asked for: the longest a dead host's mapping outlives it.
    public static let requestedLifetime: UInt32 = 600
    public struct Configuration: Sendable {
        /// This machine's LAN address, as the gateway sees it (PCP's client address).
        public var clientAddress: IPv4Address
        /// The default gateway: requests go to it, and only its answers are read.
        public var gateway: IPv4Address
        public var mappings: [WantedMapping]
        /// Seconds each mapping is asked for.
        public var requestedLifetime: UInt32

        public init(clientAddress: IPv4Address, gateway: IPv4Address, mappings: [WantedMapping],
                    requestedLifetime: UInt32 = PortMappingSession.requestedLifetime) {
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
    public internal(set) var phase = Phase.idle
    /// Datagrams dropped: from elsewhere than the gateway's port 5351, unreadable, or answering
    /// nothing asked (wrong nonce, port, opcode, or a duplicate).
    public internal(set) var ignoredDatagrams = 0
    /// The latest grant reported with `.mapped`.
    public internal(set) var grant: PortMappingGrant?

    /// What is known of each wanted mapping, in the configuration's order.
    struct Slot {
        let wanted: WantedMapping
        let nonce: PCPNonce
        var granted: Granted?
        /// Whether a request for it went out with the current protocol (so release deletes it).
        var requested = false
    }

    struct Granted {
        var externalPort: UInt16
        /// PCP gives it per mapping; NAT-PMP answers it apart (`natPMPAddress`).
        var externalAddress: IPv4Address?
        var lifetime: UInt32
        var expiresAt: Instant
        var renewAt: Instant
    }

    enum RequestID: Hashable, Comparable {
        case publicAddress
        case mapping(Int)

        var mappingIndex: Int? {
            if case .mapping(let index) = self { return index }
            return nil
        }
    }

    struct Pending {
        let bytes: [UInt8]
        var schedule: RetransmitSchedule
    }

    var slots: [Slot]
    var mappingProtocol = PortMappingProtocol.pcp
    var pending: [RequestID: Pending] = [:]
    var natPMPAddress: IPv4Address?
    var epoch = GatewayEpoch(rule: .pcp)
    /// Whether any response has been read in the current protocol, and in the whole session.
    var heardInProtocol = false
    var heardAny = false
    var releaseEndsAt: Instant?

    var outputs: [Output] = []

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

    func begin(_ kind: PortMappingProtocol, now: Instant) {
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

    /// The datagrams that delete every mapping granted now (lifetime 0, with each PCP mapping's
    /// nonce), for the gateway's port: kept by the owner so that a later process can delete
    /// what this one leaves if it dies first (a PCP mapping is deleted only with its nonce).
    public var deletions: [[UInt8]] {
        slots.indices.filter { slots[$0].granted != nil }.map { request(for: $0, lifetime: 0) }
    }

    /// Asks for (lifetime > 0) or deletes (0) one mapping, suggesting what the gateway gave before.
    func requestMapping(_ index: Int, lifetime: UInt32, until giveUpAt: Instant, now: Instant) {
        slots[index].requested = true
        ask(.mapping(index), request(for: index, lifetime: lifetime), until: giveUpAt, now: now)
    }

    /// The request for (lifetime > 0) or deletion of (0) one mapping in the current protocol.
    func request(for index: Int, lifetime: UInt32) -> [UInt8] {
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
        return bytes
    }

    func ask(_ id: RequestID, _ bytes: [UInt8], until giveUpAt: Instant, now: Instant) {
        var request = Pending(bytes: bytes, schedule: RetransmitSchedule(start: now, initialInterval: Self.initialRetransmitInterval, giveUpAt: giveUpAt))
        if request.schedule.sendIfDue(now: now) { outputs.append(.send(bytes)) }
        pending[id] = request
    }

    // MARK: Time

    func timeout(now: Instant) {
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

    func gaveUp(_ id: RequestID, now: Instant) {
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

    func fail(_ event: PortMappingEvent) {
        phase = .failed
        pending = [:]
        outputs.append(.event(event))
    }

    // MARK: Releasing

    func release(now: Instant) {
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

    func finishRelease() {
        phase = .released
        pending = [:]
        releaseEndsAt = nil
        for index in slots.indices { slots[index].granted = nil }
        outputs.append(.event(.released))
    }
}
