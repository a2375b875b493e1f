import ConfCore

extension Instant {
    /// `self - earlier` in milliseconds, negative when `earlier` is the later one. Exact for spans
    /// under 2^63 ns; never traps, whatever the two values (the receiver's clock can say anything).
    func milliseconds(since earlier: Instant) -> Double {
        Double(Int64(bitPattern: nanoseconds &- earlier.nanoseconds)) / 1e6
    }
}

extension Duration {
    /// A duration from milliseconds that may be fractional, negative or not finite (then zero).
    static func milliseconds(exactly value: Double) -> Duration {
        guard value.isFinite else { return .zero }
        return .nanoseconds(Int64(max(-9e18, min(9e18, value * 1e6))))
    }
}
