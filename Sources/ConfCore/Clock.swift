/// Where "now" comes from. The real one lives in ConfIO; tests use `ManualClock`.
public protocol MonotonicClock: Sendable {
    func now() -> Instant
}

/// A clock that moves only when told to. Not thread-safe: tests drive it from one thread.
public final class ManualClock: MonotonicClock, @unchecked Sendable {
    private var current: Instant

    public init(_ start: Instant = .zero) { current = start }

    public func now() -> Instant { current }

    public func advance(by duration: Duration) { current = current + duration }
}
