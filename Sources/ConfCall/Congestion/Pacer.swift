import ConfCore

/// Spreads one link's packets out in time so that a video frame does not hit the path as one
/// burst: packets leave in bursts every `burstInterval` (5 ms) at `pacingFactor` (2.5) × the
/// link's target, libwebrtc's pacing. Generic over what it carries (datagram ids, packets).
///
/// A token budget in bytes fills at the pacing rate, up to two burst intervals' worth; a waiting
/// packet may leave while the budget is positive (the last one of a burst may overdraw it).
/// `nextDeadline` is when the budget will hold one interval's worth again. Audio leaves at the
/// next poll whatever the budget (it must never wait behind video) and its bytes count against it.
///
/// Queue bound, in time: rather than drop video (a frame missing packets cannot be decoded, and
/// the key frame asked for then is the largest there is), the pacer raises its rate so that what
/// waits leaves within `maximumQueueTime` (2 s) of the oldest packet's arrival, as libwebrtc does;
/// the encoder follows the target, so such a queue is a passing spike. Only past `capacity`
/// packets is the oldest video (else retransmission) dropped, a guard against a caller that never
/// polls.
public struct Pacer<Item: Sendable>: Sendable {
    public struct Configuration: Sendable {
        public var pacingFactor = 2.5
        public var burstInterval: Duration = .milliseconds(5)
        public var maximumQueueTime: Duration = .seconds(2)
        public var capacity = 10_000
        public init() {}
    }

    private struct Queued: Sendable {
        var item: Item
        var size: Int
        var enqueuedAt: Instant
    }

    public let configuration: Configuration
    /// Bits per second the budget fills at, before any raise for a long queue.
    public private(set) var pacingRate: Double
    private var queues: [FIFOQueue<Queued>] = Array(repeating: FIFOQueue(), count: PacketPriority.allCases.count)
    private var budget = 0.0  // bytes
    private var budgetUpdated: Instant?
    /// The rate the budget filled at since the last poll (pacingRate, or higher for a long queue).
    private var effectiveRate: Double
    public private(set) var queuedBytes = 0
    public private(set) var droppedCount = 0

    public init(targetBitsPerSecond: Int, configuration: Configuration = .init()) {
        self.configuration = configuration
        pacingRate = Self.rate(target: targetBitsPerSecond, factor: configuration.pacingFactor)
        effectiveRate = pacingRate
        budget = burstBytes(pacingRate)
    }

    public var queuedCount: Int { queues.reduce(0) { $0 + $1.count } }

    /// How long what waits now takes to leave at the pacing rate (a packet queued now leaves
    /// about then).
    public var queueTime: Duration {
        pacingRate > 0 ? .nanoseconds(Int64(Double(queuedBytes) * 8 / pacingRate * 1e9)) : .zero
    }

    /// Follows the link's target (bits per second).
    public mutating func setTarget(bitsPerSecond: Int, now: Instant) {
        refill(now: now)
        pacingRate = Self.rate(target: bitsPerSecond, factor: configuration.pacingFactor)
        effectiveRate = max(pacingRate, drainRate(now: now))
    }

    /// Queues `item` of `size` bytes on the wire. Call `poll` after: audio leaves then.
    public mutating func enqueue(_ item: Item, size: Int, priority: PacketPriority, now: Instant) {
        let size = WireSize.clamped(size)
        queues[priority.rawValue].append(Queued(item: item, size: size, enqueuedAt: now))
        queuedBytes += size
        if queuedCount > configuration.capacity,
           let dropped = queues[PacketPriority.video.rawValue].popFirst() ?? queues[PacketPriority.retransmission.rawValue].popFirst() {
            queuedBytes -= dropped.size
            droppedCount += 1
        }
    }

    /// Drops what waits at `priority` (video for a link whose video just paused: those frames
    /// would only delay its audio, and it starts again at a key frame); how many went.
    @discardableResult
    public mutating func dropQueued(_ priority: PacketPriority) -> Int {
        var dropped = 0
        while let queued = queues[priority.rawValue].popFirst() {
            queuedBytes -= queued.size
            dropped += 1
        }
        return dropped
    }

    /// What may leave now, in priority order, first-in first-out within a priority.
    public mutating func poll(now: Instant) -> [Item] { pollSized(now: now).map(\.item) }

    /// `poll` with each item's size as it was queued (clamped).
    mutating func pollSized(now: Instant) -> [(item: Item, size: Int)] {
        refill(now: now)
        var out: [(item: Item, size: Int)] = []
        while let audio = queues[PacketPriority.audio.rawValue].popFirst() {
            take(audio, into: &out)
        }
        while budget > 0, let next = popPaced() {
            take(next, into: &out)
        }
        effectiveRate = max(pacingRate, drainRate(now: now))
        return out
    }

    /// When to poll next: now for waiting audio, the moment the budget holds a burst interval's
    /// worth for anything else, nil when nothing waits.
    public var nextDeadline: Instant? {
        guard let updated = budgetUpdated else { return queuedCount > 0 ? .zero : nil }
        if !queues[PacketPriority.audio.rawValue].isEmpty { return updated }
        guard queuedCount > 0 else { return nil }
        let wanted = burstBytes(effectiveRate) - budget
        guard wanted > 0 else { return updated }
        return updated + .nanoseconds(Int64(min(9e18, (wanted * 8 / effectiveRate * 1e9).rounded(.up))))
    }

    private mutating func take(_ queued: Queued, into out: inout [(item: Item, size: Int)]) {
        budget -= Double(queued.size)
        queuedBytes -= queued.size
        out.append((queued.item, queued.size))
    }

    private mutating func popPaced() -> Queued? {
        for priority in [PacketPriority.retransmission, .video] {
            if let next = queues[priority.rawValue].popFirst() { return next }
        }
        return nil
    }

    private mutating func refill(now: Instant) {
        let elapsed = budgetUpdated.map { now.since($0).milliseconds / 1000 } ?? 0
        budgetUpdated = max(budgetUpdated ?? now, now)
        budget = min(2 * burstBytes(effectiveRate), budget + effectiveRate / 8 * elapsed)
    }

    /// The rate at which the waiting packets leave before the oldest has waited `maximumQueueTime`.
    private func drainRate(now: Instant) -> Double {
        let oldest = queues.compactMap { $0.first?.enqueuedAt }.min()
        guard let oldest, queuedBytes > 0 else { return 0 }
        let left = max(0.001, (configuration.maximumQueueTime - now.since(oldest)).milliseconds / 1000)
        return Double(queuedBytes) * 8 / left
    }

    /// The bytes of one burst interval (at least 1 ms: a zero interval would never fill the budget).
    private func burstBytes(_ rate: Double) -> Double { rate / 8 * (max(1, configuration.burstInterval.milliseconds) / 1000) }

    private static func rate(target: Int, factor: Double) -> Double {
        max(1000, Double(max(0, target)) * (factor.isFinite && factor > 0 ? factor : 1))
    }
}
