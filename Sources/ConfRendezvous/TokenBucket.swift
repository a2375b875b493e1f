import ConfCore

/// Allows `rate` events a second on average and bursts of up to `burst`.
public struct TokenBucket: Sendable {
    let rate: Double
    let burst: Double
    private var tokens: Double
    private var last: Instant?

    public init(rate: Int, burst: Int) {
        self.rate = Double(rate)
        self.burst = Double(burst)
        tokens = Double(burst)
    }

    /// Whether it holds its whole burst again at `now`: nothing about it is worth remembering.
    public func isFull(at now: Instant) -> Bool {
        guard let last else { return true }
        return tokens + now.since(last).milliseconds / 1000 * rate >= burst
    }

    /// Takes one token if there is one.
    public mutating func take(at now: Instant) -> Bool {
        if let last { tokens = min(burst, tokens + now.since(last).milliseconds / 1000 * rate) }
        last = now
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}
