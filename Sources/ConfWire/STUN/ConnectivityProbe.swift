import ConfCore

/// What `conf check` asks the network, without making a room: a STUN Binding request from one
/// UDP socket to each STUN server (a conf rendezvous answers STUN at its own port), and a TURN
/// Allocate to each TURN server (any answer, even 401, says the server is reachable). Sans-IO:
/// the caller sends `.send` outputs from one socket, hands in what comes back and the time.
///
/// Each request is sent up to three times, 500 ms then 1 s apart (RFC 8489 section 6.2.1's
/// first steps); the probe is done when every server answered or the last wait ran out.
public final class ConnectivityProbe {
    public enum Output: Equatable, Sendable {
        case send([UInt8], to: Int)
    }

    /// What one STUN server said: the address our socket has outside the NATs, as it saw it.
    public enum STUNResult: Equatable, Sendable {
        case mapped(STUNTransportAddress)
        case noAnswer
    }

    static let waits: [Duration] = [.milliseconds(500), .seconds(1), .milliseconds(1500)]

    /// One per server, in the servers' order.
    private struct Asking {
        var transaction: STUNTransactionID
        var sent = 0
        var nextAt: Instant?
        var answer: STUNResult?
        var turnAnswered = false
    }

    private var asking: [Asking] = []
    private var outputs: [Output] = []
    private var started = false
    public let stunServers: Int
    public let turnServers: Int

    /// Servers are numbered: STUN servers 0..<stunServers, TURN servers after them.
    public init(stunServers: Int, turnServers: Int, random: inout some RandomNumberGenerator) {
        self.stunServers = stunServers
        self.turnServers = turnServers
        for _ in 0..<(stunServers + turnServers) { asking.append(Asking(transaction: STUNTransactionID(using: &random))) }
    }

    public func start(now: Instant) {
        started = true
        for index in asking.indices { send(index, now: now) }
    }

    /// A datagram from server `server`; anything that is not an answer to what we asked it is
    /// dropped.
    public func received(_ datagram: [UInt8], from server: Int) {
        guard asking.indices.contains(server) else { return }
        let index = server, item = asking[index]
        if isTURN(index) {
            guard let message = try? STUNMessage.parse(datagram), message.method == .allocate,
                  message.transactionID == item.transaction, message.messageClass != .request, message.messageClass != .indication else { return }
            asking[index].turnAnswered = true
            asking[index].nextAt = nil
        } else {
            guard item.answer == nil, case .mapped(let address)? = STUNBindingRequest(transactionID: item.transaction).response(in: datagram) else { return }
            asking[index].answer = .mapped(address)
            asking[index].nextAt = nil
        }
    }

    public func timeout(now: Instant) {
        for index in asking.indices {
            guard let due = asking[index].nextAt, due <= now else { continue }
            if asking[index].sent < Self.waits.count {
                send(index, now: now)
            } else {
                asking[index].nextAt = nil
                if !isTURN(index) { asking[index].answer = .noAnswer }
            }
        }
    }

    public func pollOutput() -> Output? { outputs.isEmpty ? nil : outputs.removeFirst() }

    public func nextDeadline() -> Instant? { asking.compactMap(\.nextAt).min() }

    public var isDone: Bool { started && asking.allSatisfy { $0.nextAt == nil } }

    /// Each STUN server's answer, in order (nil while still asking).
    public var stunResults: [STUNResult?] { asking.prefix(stunServers).map(\.answer) }

    /// The address each STUN server saw, in order; nil where it did not answer (yet).
    public var mappedAddresses: [STUNTransportAddress?] {
        stunResults.map { if case .mapped(let address)? = $0 { address } else { nil } }
    }

    /// Whether each TURN server answered, in order.
    public var turnAnswered: [Bool] { asking.dropFirst(stunServers).map(\.turnAnswered) }

    private func isTURN(_ index: Int) -> Bool { index >= stunServers }

    private func send(_ index: Int, now: Instant) {
        let item = asking[index]
        let bytes = isTURN(index)
            ? STUNMessage(.request, .allocate, transactionID: item.transaction,
                          attributes: [STUNAttribute(.requestedTransport, [17, 0, 0, 0])]).bytes
            : STUNBindingRequest(transactionID: item.transaction).bytes
        outputs.append(.send(bytes, to: index))
        asking[index].nextAt = now + Self.waits[item.sent]
        asking[index].sent += 1
    }
}

/// What a host and a joiner on this network would meet (`conf check`), from the facts gathered:
/// the router's port mapping, the STUN answers, this machine's IPv6 addresses, TURN.
public struct ConnectivityVerdict: Equatable, Sendable {
    /// How the NAT in front of this machine maps one socket's traffic.
    public enum NATMapping: String, Sendable {
        /// The address STUN saw is this machine's own.
        case none
        /// One outside address and port for every destination: hole punching works.
        case endpointIndependent = "endpoint-independent"
        /// A port of its own per destination (symmetric): only a forwarded port or a relay helps.
        case perDestination = "per-destination"
        /// Only one STUN server answered: nothing to compare.
        case unknown
        /// No STUN server answered (UDP blocked, or the servers are down).
        case noAnswer = "no-answer"
    }

    public enum Verdict: String, Sendable {
        /// A direct call is likely: the port is forwarded, or the NAT lets hole punching through.
        case direct
        /// Only through a TURN relay (or a port forwarded by hand).
        case relay
        /// Nothing could be learned that says a direct call would work.
        case unknown
    }

    public var verdict: Verdict
    public var nat: NATMapping
    /// The address the first STUN answer names, "host:port".
    public var mappedAddress: String?

    /// `mapped` are the STUN answers' addresses, in the order asked; `local` this machine's
    /// addresses; `forwarded` whether the router forwards the port (or the address is public).
    public init(mapped: [STUNTransportAddress?], local: [String], forwarded: Bool) {
        let answers = mapped.compactMap { $0 }
        mappedAddress = answers.first?.description
        if answers.isEmpty {
            nat = .noAnswer
        } else if let first = answers.first, local.contains(first.host) {
            nat = .none
        } else if answers.count < 2 {
            nat = .unknown
        } else if Set(answers.map(\.hostPort)).count == 1 {
            nat = .endpointIndependent
        } else {
            nat = .perDestination
        }
        switch nat {
        case _ where forwarded: verdict = .direct
        case .none, .endpointIndependent: verdict = .direct
        case .perDestination: verdict = .relay
        case .unknown, .noAnswer: verdict = .unknown
        }
    }
}
