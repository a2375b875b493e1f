import ConfCore

/// One direction of a path with a bottleneck: packets wait in a first-in first-out queue that
/// drains at `capacity` bits per second, then travel `propagation`. A packet that would wait more
/// than `queueLimit` is dropped (drop-tail); each packet is also lost with probability `loss`
/// before the queue, drawn from a seeded generator. Deliveries come out in sending order.
struct SimulatedBottleneck {
    struct Delivery {
        var sequence: Int64
        var size: Int
        var sentAt: Instant
        var arrival: Instant
        /// How long it waited in the bottleneck's queue.
        var queued: Duration
    }

    var capacity: Int
    var propagation: Duration
    var queueLimit: Duration = .milliseconds(500)
    var loss = 0.0
    var random: SeededRandom
    private var busyUntil = Instant.zero
    private var inFlight: [Delivery] = []
    private var nextDue = 0
    private(set) var dropped = 0

    init(capacity: Int, propagation: Duration, seed: UInt64 = 1) {
        self.capacity = capacity
        self.propagation = propagation
        random = SeededRandom(seed: seed)
    }

    mutating func send(sequence: Int64, size: Int, at now: Instant) {
        if loss > 0, Double.random(in: 0..<1, using: &random) < loss {
            dropped += 1
            return
        }
        let start = max(now, busyUntil)
        let waited = start.since(now)
        guard waited <= queueLimit else {
            dropped += 1
            return
        }
        busyUntil = start + .nanoseconds(Int64(size) * 8 * 1_000_000_000 / Int64(capacity))
        inFlight.append(Delivery(sequence: sequence, size: size, sentAt: now, arrival: busyUntil + propagation, queued: waited))
    }

    /// The packets that arrived by `now`, in order.
    mutating func arrived(by now: Instant) -> ArraySlice<Delivery> {
        let first = nextDue
        while nextDue < inFlight.count, inFlight[nextDue].arrival <= now { nextDue += 1 }
        return inFlight[first..<nextDue]
    }
}
