import ConfCore

/// One direction of a path with a bottleneck: packets wait in a drop-tail queue that drains at
/// `capacity` bits per second (`DropTailQueue`), then travel `propagation`. A packet that would wait more
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

    var capacity: Int {
        get { queue.bitsPerSecond }
        set { queue.bitsPerSecond = newValue }
    }
    var propagation: Duration
    private var queue: DropTailQueue
    var loss = 0.0
    var random: SeededRandom
    private var inFlight: [Delivery] = []
    private var nextDue = 0
    private(set) var dropped = 0

    init(capacity: Int, propagation: Duration, queueLimit: Duration = .milliseconds(500), seed: UInt64 = 1) {
        queue = DropTailQueue(bitsPerSecond: capacity, limit: .wait(queueLimit))
        self.propagation = propagation
        random = SeededRandom(seed: seed)
    }

    mutating func send(sequence: Int64, size: Int, at now: Instant) {
        if loss > 0, Double.random(in: 0..<1, using: &random) < loss {
            dropped += 1
            return
        }
        guard let (leaves, waited) = queue.admit(size, at: now) else {
            dropped += 1
            return
        }
        inFlight.append(Delivery(sequence: sequence, size: size, sentAt: now, arrival: leaves + propagation, queued: waited))
    }

    /// The packets that arrived by `now`, in order.
    mutating func arrived(by now: Instant) -> ArraySlice<Delivery> {
        let first = nextDue
        while nextDue < inFlight.count, inFlight[nextDue].arrival <= now { nextDue += 1 }
        return inFlight[first..<nextDue]
    }
}
