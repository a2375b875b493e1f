import ConfCore
import Synchronization

/// Which STUN Binding requests the rendezvous answers, decided from the sender's address alone,
/// before any answer is built. Pure.
///
/// A request costs little to forge (its source address included), and every answer goes where
/// the source says, so answers are bounded in all (`total` a second) so that the port cannot
/// flood a third party. Within that bound each source gets its own budget (an IPv4 address, an
/// IPv6 /64: what one party plausibly controls), so that one sender's flood spends its own
/// budget, not everyone's; and a share of the total (`reserved`) is kept for sources that hold a
/// WebSocket open to the rendezvous (its participants), which a flood from forged addresses
/// (every packet another source) cannot spend.
public struct STUNAnswerBudget: Sendable {
    public struct Limits: Sendable {
        /// Answers a second to one source, and its burst. An ICE agent asks a few times while it
        /// gathers, then every few seconds at most.
        public var perSource = 10, perSourceBurst = 20
        /// The same for a source that holds a WebSocket open here: more, as one address may be a
        /// whole office's or a carrier's NAT, with several participants behind it.
        public var perParticipantSource = 50, perParticipantSourceBurst = 100
        /// Answers a second in all, and how many of them only participants may take.
        public var total = 2_000, reserved = 500
        /// Sources followed at once; past it a new source is judged by the shared budget alone.
        public var sources = 16_384

        public init() {}
    }

    /// Who sent it: an IPv4 address, or an IPv6 /64.
    public struct Source: Hashable, Sendable {
        let bits: UInt64

        /// From the address's bytes (4 or 16; IPv4-mapped IPv6 is IPv4); nil for anything else.
        public init?(address bytes: some Collection<UInt8>) {
            let bytes = Array(bytes)
            let mapped = bytes.count == 16 && bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF
            let v4 = bytes.count == 4 ? bytes[...] : mapped ? bytes[12...] : nil
            if let v4 {
                bits = 0xFFFF_0000_0000_0000 | v4.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            } else if bytes.count == 16 {
                bits = bytes[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            } else {
                return nil
            }
        }

        /// From an address as text ("192.0.2.1", "2001:db8::1", "::ffff:192.0.2.1").
        public init?(text: String) {
            guard let bytes = ClientAddress.ipv4(text) ?? ClientAddress.ipv6(text) else { return nil }
            self.init(address: bytes)
        }
    }

    /// A source's budget: its own, and another once it holds a WebSocket open.
    private struct Key: Hashable {
        let source: Source
        let participant: Bool
    }

    public let limits: Limits
    private var sources: [Key: TokenBucket] = [:]
    private var shared: TokenBucket
    private var reserve: TokenBucket
    private var lastSweep: Instant?

    public init(limits: Limits = Limits()) {
        self.limits = limits
        shared = TokenBucket(rate: limits.total - limits.reserved, burst: max(1, (limits.total - limits.reserved) / 4))
        reserve = TokenBucket(rate: limits.reserved, burst: max(1, limits.reserved / 4))
    }

    /// Whether to answer a request from `source`; `participant`: it holds a WebSocket open here.
    public mutating func admit(_ source: Source, participant: Bool, now: Instant) -> Bool {
        sweep(now: now)
        let key = Key(source: source, participant: participant)
        if sources[key] != nil || sources.count < limits.sources {
            var bucket = sources[key] ?? (participant ? TokenBucket(rate: limits.perParticipantSource, burst: limits.perParticipantSourceBurst)
                                                      : TokenBucket(rate: limits.perSource, burst: limits.perSourceBurst))
            let allowed = bucket.take(at: now)
            sources[key] = bucket
            guard allowed else { return false }
        }
        if participant, reserve.take(at: now) { return true }
        return shared.take(at: now)
    }

    /// Sources followed now (for tests and figures).
    public var followed: Int { sources.count }

    /// Once a second: forgets the sources whose buckets have filled again (nothing to remember).
    private mutating func sweep(now: Instant) {
        if let lastSweep, now.since(lastSweep) < .seconds(1) { return }
        lastSweep = now
        sources = sources.filter { !$0.value.isFull(at: now) }
    }
}

/// The sources that hold a WebSocket open to this rendezvous (its participants and those
/// joining), for the STUN answers' reserved share. Shared by a process's workers (each on its
/// own thread, counting its connections) and its STUN server (asking per request).
public final class STUNParticipants: Sendable {
    private let open = Mutex<[STUNAnswerBudget.Source: Int]>([:])

    public init() {}

    /// A WebSocket from `address` (text, as the I/O layer reports it) opened, or closed.
    public func opened(_ address: String) {
        guard let source = STUNAnswerBudget.Source(text: address) else { return }
        open.withLock { $0[source, default: 0] += 1 }
    }

    public func closed(_ address: String) {
        guard let source = STUNAnswerBudget.Source(text: address) else { return }
        open.withLock { table in
            let left = (table[source] ?? 1) - 1
            table[source] = left > 0 ? left : nil
        }
    }

    public func contains(_ source: STUNAnswerBudget.Source) -> Bool { open.withLock { $0[source] != nil } }
}
