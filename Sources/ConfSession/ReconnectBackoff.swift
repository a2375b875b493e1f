/// Delays between attempts to reach a lost server: exponential from `base`, capped at `cap`, each
/// drawn at random from its upper half ("equal jitter"), so that a room's participants, who lost
/// the rendezvous at the same moment, do not all come back at the same instant. Pure: the
/// randomness is passed in.
public struct ReconnectBackoff: Sendable {
    public let base: Duration
    public let cap: Duration
    public private(set) var attempts = 0

    public init(base: Duration = .milliseconds(500), cap: Duration = .seconds(15)) {
        self.base = base
        self.cap = cap
    }

    /// The delay before the next attempt.
    public mutating func next<R: RandomNumberGenerator>(using random: inout R) -> Duration {
        let ceiling = min(cap, base * Double(1 << min(attempts, 20)))
        attempts += 1
        return ceiling * Double.random(in: 0.5...1.0, using: &random)
    }

    /// A success: the next loss starts again from `base`.
    public mutating func reset() { attempts = 0 }
}
