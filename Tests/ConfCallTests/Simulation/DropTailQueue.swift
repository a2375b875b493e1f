import ConfCore

/// A drop-tail queue in front of a link of `bitsPerSecond`: the simulations' one bottleneck
/// (`SimulatedNetwork`'s caps, shared uplinks and downlinks; the congestion tests'
/// `SimulatedBottleneck`). With `burst` bytes of credit it is a token bucket, as `tc ... tbf
/// burst`: that much may leave at once after a quiet spell.
struct DropTailQueue: Equatable, Sendable {
    /// What the queue holds before it drops: bytes waiting (a router's buffer), or how long a
    /// newcomer would wait.
    enum Limit: Equatable, Sendable {
        case bytes(Int)
        case wait(Duration)
    }

    var bitsPerSecond: Int
    var limit: Limit
    var burst = 0
    /// Other traffic (a download, a peer the test does not model) that keeps at least this much
    /// waiting ahead of every newcomer: a queue that stands rather than swings.
    var standingWait: Duration?
    /// When everything accepted so far has left (with a burst, when the bucket is empty).
    private(set) var busyUntil = Instant.zero

    init(bitsPerSecond: Int, limit: Limit, burst: Int = 0) {
        self.bitsPerSecond = bitsPerSecond
        self.limit = limit
        self.burst = burst
    }

    /// A home uplink or downlink: `bandwidth` bits per second, `queueLimit` bytes of buffer.
    init(bandwidth: Int, queueLimit: Int = 64 * 1024) {
        self.init(bitsPerSecond: bandwidth, limit: .bytes(queueLimit))
    }

    /// `bytes` entering at `now`: when they have left the link (the end of their serialisation)
    /// and how long they waited for it; nil when the queue is full and drops them.
    mutating func admit(_ bytes: Int, at now: Instant) -> (leaves: Instant, waited: Duration)? {
        let rate = Int64(max(1, bitsPerSecond))
        let credit = Duration.nanoseconds(Int64(max(0, burst)) * 8 * 1_000_000_000 / rate)
        if let standingWait { busyUntil = max(busyUntil, now + standingWait) }
        let start = max(now - credit, busyUntil)
        switch limit {
        case .bytes(let limit):
            // Bytes accepted but not yet sent, counting what is left of the one on the wire.
            let backlog = Double(start.since(now).nanosecondsClamped) * Double(rate) / 8e9
            guard backlog + Double(bytes) <= Double(limit) else { return nil }
        case .wait(let limit):
            guard start.since(now) <= limit else { return nil }
        }
        busyUntil = start + .nanoseconds(Int64(bytes) * 8 * 1_000_000_000 / rate)
        return (max(now, busyUntil), start.since(now))
    }
}
