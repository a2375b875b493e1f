import ConfCore

// TEMPORARY stand-in until the `simnet` branch's SimulatedNetwork lands: a fixed one-way delay and
// seeded random loss.
struct TestNetwork<Node: Hashable> {
    struct Delivery { var from: Node; var to: Node; var bytes: [UInt8]; var at: Instant }
    var delay: Duration = .milliseconds(20)
    var loss = 0.0
    private var queue: [Delivery] = []
    private var random: SeededRandom

    init(seed: UInt64) { random = SeededRandom(seed: seed) }

    mutating func send(_ bytes: [UInt8], from: Node, to: Node, now: Instant) {
        if loss > 0, Double(random.next() % 1_000_000) / 1_000_000 < loss { return }
        queue.append(Delivery(from: from, to: to, bytes: bytes, at: now + delay))
    }

    var nextDelivery: Instant? { queue.map(\.at).min() }

    mutating func deliver(upTo now: Instant) -> [Delivery] {
        let due = queue.filter { $0.at <= now }
        queue.removeAll { $0.at <= now }
        return due
    }
}
