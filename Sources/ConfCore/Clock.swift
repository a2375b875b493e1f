import Synchronization

/// Where "now" comes from. The real one lives in ConfIO; tests use `ManualClock`.
public protocol MonotonicClock: Sendable {
    func now() -> Instant
}

/// A clock that moves only when told to (tests). Safe to read from any thread.
public final class ManualClock: MonotonicClock, Sendable {
    private let current: Mutex<Instant>

    public init(_ start: Instant = .zero) { current = Mutex(start) }

    public func now() -> Instant { current.withLock { $0 } }

    public func advance(by duration: Duration) { current.withLock { $0 = $0 + duration } }
}
