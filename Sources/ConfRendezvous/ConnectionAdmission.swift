import ConfCore

/// Which TCP connections the rendezvous keeps, before any of them is a WebSocket: at most
/// `maxPerClient` from one client (`ClientAddress.client`, so an IPv6 /64 counts once), at most
/// `maxTotal` in all (or what a `SharedBudget` shared with other workers allows), and none
/// that takes longer than `requestTimeout` to send a complete request (or to take its answer) —
/// a slow-header ("slowloris") client cannot hold descriptors.
///
/// Pure but for the shared budget: the I/O layer reports accepts, requests, upgrades and closes
/// with `now`, closes what `accept` evicts and what `expire` returns, and refuses what `accept`
/// refuses.
///
///     accepted ──request read──▶ answering ──answered──▶ accepted (keep-alive: a new deadline)
///        │                           │
///        └── deadline passed ────────┴──▶ expired          WebSocket upgrade ──▶ upgraded (no deadline:
///                                                          RendezvousCore's lobby and silence timeouts)
///
/// When the table is full, a newcomer takes the place of the connection that has waited
/// longest for its request, so a flood of slow connections cannot keep a real client out; only
/// when every connection is an upgraded WebSocket is the newcomer refused. With a shared
/// `SharedBudget` (the workers of one process), the table is full when the budget is: each
/// worker evicts only its own waiting connections, and refuses when it has none.
public struct ConnectionAdmission: Sendable {
    public struct Limits: Sendable, Equatable {
        public var maxTotal: Int
        public var maxPerClient: Int
        public var requestTimeout: Duration
        /// Clients (`ClientAddress.client`) not held to `maxPerClient`: the load balancers in
        /// front, which carry everyone's connections (`--trusted-proxy`).
        public var uncapped: Set<String>

        public init(maxTotal: Int, maxPerClient: Int = 64, requestTimeout: Duration = .seconds(10), uncapped: Set<String> = []) {
            self.maxTotal = maxTotal
            self.maxPerClient = maxPerClient
            self.requestTimeout = requestTimeout
            self.uncapped = uncapped
        }
    }

    public enum Refusal: Sendable, Equatable {
        /// The client already holds `maxPerClient` connections.
        case tooManyFromClient
        /// `maxTotal` connections are open (with a shared budget: the budget is spent) and all of
        /// this table's are WebSockets.
        case full
    }

    public enum Decision: Sendable, Equatable {
        /// Keep the connection; close `evicting` first when it is set.
        case admit(evicting: UInt64?)
        case refuse(Refusal)
    }

    private struct Entry {
        let client: String
        /// nil once upgraded to a WebSocket.
        var deadline: Instant?
    }

    public let limits: Limits
    /// Shared with the process's other workers; nil: `limits.maxTotal` bounds this table alone.
    /// Each worker owns one table and mutates it in place: a copy would share the budget but not
    /// the entries, and release their places twice.
    private let budget: SharedBudget?
    private var entries: [UInt64: Entry] = [:]
    private var perClient: [String: Int] = [:]

    public init(limits: Limits, sharing budget: SharedBudget? = nil) {
        self.limits = limits
        self.budget = budget
    }

    public var count: Int { entries.count }

    public func count(from client: ClientAddress) -> Int { perClient[client.client] ?? 0 }

    /// A connection `id` from `client` was just accepted.
    public mutating func accept(_ id: UInt64, from client: ClientAddress, now: Instant) -> Decision {
        if perClient[client.client, default: 0] >= max(1, limits.maxPerClient), !limits.uncapped.contains(client.client) {
            return .refuse(.tooManyFromClient)
        }
        var evicted: UInt64?
        let hasPlace = budget.map { $0.take() } ?? (entries.count < max(1, limits.maxTotal))
        if !hasPlace {
            guard let oldest = entries.filter({ $0.value.deadline != nil }).min(by: { $0.value.deadline! < $1.value.deadline! })?.key else {
                return .refuse(.full)
            }
            remove(oldest, releasing: false)  // its place in the budget goes to the newcomer
            evicted = oldest
        }
        entries[id] = Entry(client: client.client, deadline: now + limits.requestTimeout)
        perClient[client.client, default: 0] += 1
        return .admit(evicting: evicted)
    }

    /// A complete request arrived on `id`: its answer must be taken within the timeout.
    public mutating func requestRead(_ id: UInt64, now: Instant) { restartDeadline(id, now: now) }

    /// The answer on `id` went out: a keep-alive connection has the timeout to send its next request.
    public mutating func requestAnswered(_ id: UInt64, now: Instant) { restartDeadline(id, now: now) }

    /// `id` is a WebSocket now: RendezvousCore times it out if it does not join or goes silent.
    public mutating func upgraded(_ id: UInt64) { entries[id]?.deadline = nil }

    public mutating func closed(_ id: UInt64) { remove(id) }

    /// The connections past their deadline, removed from the table: close them.
    public mutating func expire(now: Instant) -> [UInt64] {
        let late = entries.filter { $0.value.deadline.map { now >= $0 } ?? false }.map(\.key).sorted()
        for id in late { remove(id) }
        return late
    }

    private mutating func restartDeadline(_ id: UInt64, now: Instant) {
        guard entries[id]?.deadline != nil else { return }
        entries[id]?.deadline = now + limits.requestTimeout
    }

    private mutating func remove(_ id: UInt64, releasing: Bool = true) {
        guard let entry = entries.removeValue(forKey: id) else { return }
        if releasing { budget?.release() }
        let left = perClient[entry.client, default: 1] - 1
        perClient[entry.client] = left > 0 ? left : nil
    }
}
