import ConfCore

/// Counts events in the last `window` of time: "at most N wrong pins a minute".
struct SlidingWindowCounter {
    let window: Duration
    private var times: [Instant] = []

    init(window: Duration) { self.window = window }

    mutating func count(at now: Instant) -> Int {
        prune(now)
        return times.count
    }

    mutating func record(at now: Instant) {
        prune(now)
        times.append(now)
    }

    /// True when nothing in the window remains, so the counter can be dropped.
    mutating func isEmpty(at now: Instant) -> Bool { count(at: now) == 0 }

    private mutating func prune(_ now: Instant) {
        let cutoff = now - window
        if let keep = times.firstIndex(where: { $0 > cutoff }) {
            if keep > 0 { times.removeFirst(keep) }
        } else {
            times.removeAll(keepingCapacity: true)
        }
    }
}
