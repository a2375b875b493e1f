import ConfCore

/// A seeded virtual network between test participants, driven by a manual clock.
///
/// Datagrams go in with `send(_:from:to:now:)` and come out of `deliver(upTo:)` at the time the
/// directed pair's `LinkConditions` give them; `nextDelivery` says when to look next. Nothing reads a
/// clock and all chance comes from one `SeededRandom`, so the same seed and the same sends give the
/// same deliveries, byte for byte and nanosecond for nanosecond.
///
/// Not thread-safe: one test drives it from one thread.
final class SimulatedNetwork<Node: Hashable> {
    struct Delivery: Equatable {
        let from: Node
        let to: Node
        let bytes: [UInt8]
        /// When it arrives at `to`.
        let at: Instant
        /// When `from` sent it.
        let sentAt: Instant
    }

    typealias Counters = LinkCounters

    /// Conditions for every pair that has none of its own.
    var defaultConditions: LinkConditions

    // Inside, a node is its index in `nodes`: state keyed by types that do not depend on `Node` keeps
    // debug builds fast (no generic metadata to instantiate for every datagram).
    private var nodes: [Node] = []
    private var indices: [Node: Int] = [:]
    private var conditionsByPair: [NodePair: LinkConditions] = [:]
    private var links: [NodePair: LinkState] = [:]
    private var cuts = Set<NodePair>()
    private var isolated = Set<Int>()
    /// Nodes whose sending is capped as a whole, as a home uplink caps every flow leaving it.
    private var uplinks: [Int: Uplink] = [:]
    /// Nodes whose receiving is capped as a whole (a home downlink), the same kind of queue.
    private var downlinks: [Int: Uplink] = [:]

    /// One node's shared uplink: a rate and a drop-tail queue every datagram it sends goes
    /// through first, before its pair's own conditions; or its downlink, which every datagram
    /// to it goes through last, after them.
    typealias Uplink = DropTailQueue
    private var inFlight = TimedQueue<Datagram>()
    private var random: SeededRandom

    init(seed: UInt64, conditions: LinkConditions = .perfect) {
        random = SeededRandom(seed: seed)
        defaultConditions = conditions
    }

    // MARK: Conditions

    func conditions(from: Node, to: Node) -> LinkConditions {
        conditions(for: pair(from, to))
    }

    /// Sets one direction's conditions; nil returns it to `defaultConditions`. Datagrams already on
    /// their way keep the times they were given.
    func setConditions(_ conditions: LinkConditions?, from: Node, to: Node) {
        conditionsByPair[pair(from, to)] = conditions
    }

    /// Sets both directions between `a` and `b`.
    func setConditions(_ conditions: LinkConditions?, between a: Node, and b: Node) {
        setConditions(conditions, from: a, to: b)
        setConditions(conditions, from: b, to: a)
    }

    /// Caps everything `node` sends, to every peer, at `uplink`'s rate (nil: no shared cap).
    func setUplink(_ uplink: Uplink?, for node: Node) {
        uplinks[index(of: node)] = uplink
    }

    /// Caps everything `node` receives, from every peer, at `downlink`'s rate (nil: no shared cap).
    /// Datagrams enter it in the order they were sent, which is their order of arrival while the
    /// pairs' delays are alike (as in the tests that use it).
    func setDownlink(_ downlink: Uplink?, for node: Node) {
        downlinks[index(of: node)] = downlink
    }

    // MARK: Partitions

    /// Cuts both directions between `a` and `b`: what is on its way is dropped, and so is everything
    /// sent until `heal(_:_:)`.
    func partition(_ a: Node, _ b: Node) {
        partition(from: a, to: b)
        partition(from: b, to: a)
    }

    /// Cuts one direction only (a one-way failure).
    func partition(from: Node, to: Node) {
        let cut = pair(from, to)
        cuts.insert(cut)
        dropInFlight { $0 == cut }
    }

    func heal(_ a: Node, _ b: Node) {
        cuts.remove(pair(a, b))
        cuts.remove(pair(b, a))
    }

    /// Cuts every link to and from `node` until `rejoin(_:)`; pairwise partitions stay as they are.
    func isolate(_ node: Node) {
        let index = index(of: node)
        isolated.insert(index)
        dropInFlight { $0.from == index || $0.to == index }
    }

    func rejoin(_ node: Node) { isolated.remove(index(of: node)) }

    /// Heals every partition and ends every isolation.
    func healAll() {
        cuts.removeAll()
        isolated.removeAll()
    }

    func isPartitioned(from: Node, to: Node) -> Bool { isCut(pair(from, to)) }

    private func isCut(_ pair: NodePair) -> Bool {
        if isolated.isEmpty, cuts.isEmpty { return false }
        return isolated.contains(pair.from) || isolated.contains(pair.to) || cuts.contains(pair)
    }

    private func dropInFlight(where matches: (NodePair) -> Bool) {
        for dropped in inFlight.removeAll(where: { matches($0.pair) }) {
            links[dropped.pair]?.counters.cutOnItsWay()
        }
    }

    // MARK: Sending and delivering

    /// Hands a datagram to the network at `now`; `now` must not go backwards between calls.
    func send(_ bytes: [UInt8], from: Node, to: Node, now: Instant) {
        let pair = pair(from, to)
        let conditions = conditions(for: pair)
        var link = links[pair] ?? LinkState()
        defer { links[pair] = link }

        link.counters.sent += 1
        if isCut(pair) {
            link.counters.partitioned += 1
            return
        }
        let copies = chance(conditions.duplication) ? 2 : 1
        link.counters.duplicated += copies - 1
        for _ in 0..<copies {
            transmit(Datagram(pair: pair, bytes: bytes, sentAt: now), over: &link, with: conditions, now: now)
        }
    }

    /// When the earliest datagram on its way arrives; nil when none is.
    var nextDelivery: Instant? { inFlight.earliest }

    /// Every datagram that has arrived by `now`, earliest first (those arriving at the same instant in
    /// the order they were sent).
    func deliver(upTo now: Instant) -> [Delivery] {
        var arrived: [Delivery] = []
        while let at = inFlight.earliest, let datagram = inFlight.popDue(at: now) {
            links[datagram.pair]?.counters.arrived()
            arrived.append(Delivery(from: nodes[datagram.pair.from], to: nodes[datagram.pair.to], bytes: datagram.bytes,
                                    at: at, sentAt: datagram.sentAt))
        }
        return arrived
    }

    // MARK: Counters

    func counters(from: Node, to: Node) -> Counters {
        links[pair(from, to)]?.counters ?? Counters()
    }

    /// Every pair's counters added up.
    var totals: Counters { links.values.reduce(Counters()) { $0 + $1.counters } }

    // MARK: The stages

    /// One copy through the cap's queue, loss, and delay.
    private func transmit(_ datagram: Datagram, over link: inout LinkState, with conditions: LinkConditions, now sent: Instant) {
        var now = sent
        if uplinks[datagram.pair.from] != nil {
            guard let left = uplinks[datagram.pair.from]!.admit(datagram.bytes.count, at: now)?.leaves else {
                link.counters.droppedByQueue += 1
                return
            }
            now = left
        }
        var leaves = now
        if let bandwidth = conditions.bandwidth, bandwidth > 0 {
            (link.cap.bitsPerSecond, link.cap.limit, link.cap.burst) = (bandwidth, .bytes(conditions.queueLimit), conditions.burst)
            guard let left = link.cap.admit(datagram.bytes.count, at: now)?.leaves else {
                link.counters.droppedByQueue += 1
                return
            }
            leaves = left
        }

        if isLost(on: &link, with: conditions) {
            link.counters.lost += 1
            return
        }

        var delay = max(0, conditions.delay.nanosecondsClamped)
        let jitter = conditions.jitter.nanosecondsClamped
        if jitter > 0 {
            // Uniform over -jitter...jitter (2 * jitter + 1 values), by the high half of a 128-bit product.
            let offset = Int64(UInt64(2 * jitter + 1).multipliedFullWidth(by: random.next()).high) - jitter
            delay = max(0, delay + offset)
        }
        if chance(conditions.reorder) { delay += max(0, conditions.reorderDelay.nanosecondsClamped) }

        var arrives = leaves + .nanoseconds(delay)
        if let stalls = conditions.stalls, stalls.every > .zero {
            let every = stalls.every.nanosecondsClamped
            let into = arrives.since(.zero).nanosecondsClamped % every
            let length = min(every, max(0, stalls.length.nanosecondsClamped))
            if into < length { arrives = arrives + .nanoseconds(length - into) }
        }
        if downlinks[datagram.pair.to] != nil {
            guard let left = downlinks[datagram.pair.to]!.admit(datagram.bytes.count, at: arrives)?.leaves else {
                link.counters.droppedByQueue += 1
                return
            }
            arrives = left
        }
        link.counters.inFlight += 1
        inFlight.insert(datagram, at: arrives)
    }

    /// Draws random loss, then steps the Gilbert-Elliott chain: loss is decided in the state the chain
    /// is in for this datagram, then the chain moves on.
    private func isLost(on link: inout LinkState, with conditions: LinkConditions) -> Bool {
        var lost = chance(conditions.loss)
        if let burst = conditions.burstLoss {
            if chance(link.inBadState ? burst.lossInBad : burst.lossInGood) { lost = true }
            link.inBadState = link.inBadState ? !chance(burst.badToGood) : chance(burst.goodToBad)
        }
        return lost
    }

    /// True with probability `p`; draws nothing when `p` is 0 or 1.
    private func chance(_ p: Double) -> Bool {
        if p <= 0 { return false }
        if p >= 1 { return true }
        // 53 random bits make a uniform double in [0, 1); cheaper in debug builds than the generic
        // `Double.random(in:using:)`, and the same on every platform.
        return Double(random.next() >> 11) * 0x1p-53 < p
    }

    // MARK: Nodes by index

    private func index(of node: Node) -> Int {
        if let index = indices[node] { return index }
        nodes.append(node)
        indices[node] = nodes.count - 1
        return nodes.count - 1
    }

    private func pair(_ from: Node, _ to: Node) -> NodePair { NodePair(from: index(of: from), to: index(of: to)) }

    private func conditions(for pair: NodePair) -> LinkConditions {
        if conditionsByPair.isEmpty { return defaultConditions }
        return conditionsByPair[pair] ?? defaultConditions
    }
}

/// A directed pair of nodes, by index.
private struct NodePair: Hashable {
    let from: Int
    let to: Int
}

/// One direction's moving parts.
private struct LinkState {
    /// The bandwidth cap's queue, set from the conditions before each datagram (they may change).
    var cap = DropTailQueue(bitsPerSecond: 1, limit: .bytes(0))
    /// The Gilbert-Elliott chain's state.
    var inBadState = false
    var counters = LinkCounters()
}

extension LinkCounters {
    fileprivate mutating func arrived() {
        inFlight -= 1
        delivered += 1
    }

    fileprivate mutating func cutOnItsWay() {
        inFlight -= 1
        partitioned += 1
    }
}

/// A datagram on its way.
private struct Datagram {
    let pair: NodePair
    let bytes: [UInt8]
    let sentAt: Instant
}
