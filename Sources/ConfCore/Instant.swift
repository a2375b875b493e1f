/// A point on a monotonic clock, in nanoseconds from an arbitrary origin.
///
/// The pure layers never read a clock: every `handle(_:now:)` takes an `Instant`. Only the clock
/// adapter in ConfIO produces real ones; tests make their own. Its arithmetic is `@inlinable`:
/// the engine compares and adds instants for every packet and every deadline.
public struct Instant: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var nanoseconds: UInt64

    @inlinable
    public init(nanoseconds: UInt64) { self.nanoseconds = nanoseconds }

    public static let zero = Instant(nanoseconds: 0)

    @inlinable
    public static func < (a: Instant, b: Instant) -> Bool { a.nanoseconds < b.nanoseconds }

    @inlinable
    public static func + (a: Instant, d: Duration) -> Instant {
        let delta = d.nanosecondsClamped
        return delta >= 0
            ? Instant(nanoseconds: a.nanoseconds &+ UInt64(delta))
            : Instant(nanoseconds: a.nanoseconds &- min(a.nanoseconds, delta.magnitude))
    }

    @inlinable
    public static func - (a: Instant, d: Duration) -> Instant { a + (.zero - d) }

    /// The time from `earlier` to `self`; zero when `earlier` is later.
    @inlinable
    public func since(_ earlier: Instant) -> Duration {
        self > earlier ? Duration(attoseconds: Int128(nanoseconds - earlier.nanoseconds) * 1_000_000_000) : .zero
    }

    public var description: String { "\(Double(nanoseconds) / 1e9)s" }
}

extension Duration {
    /// The duration in whole nanoseconds (toward zero), clamped to Int64. Through the native
    /// 128-bit count of attoseconds: `components` and `.nanoseconds(_:)` take a slower path
    /// (software 128-bit products), and the engine converts for every packet and deadline.
    @inlinable
    public var nanosecondsClamped: Int64 {
        let nanoseconds = attoseconds / 1_000_000_000
        if nanoseconds > Int128(Int64.max) { return .max }
        if nanoseconds < Int128(Int64.min) { return .min }
        return Int64(nanoseconds)
    }

    @inlinable
    public var milliseconds: Double { Double(nanosecondsClamped) / 1e6 }
}
