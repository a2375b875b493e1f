import ConfCore

/// Whether our own event loop has been held up lately: the driver says how long after its set
/// time a timer fired (`CallEngine.Input.loopLate`). A sender whose loop runs late (a loaded
/// machine, an emulated one) stamps its packets' send times late and its peer, often on the same
/// machine, stamps their arrivals late: the wait looks like a queue on the path that stands, which
/// no cut of ours drains. So while held up, `StandingQueueGuard` leaves frequent feedback to the
/// detector, which reads trends, not lengths.
struct LoopLateness: Sendable {
    /// Lateness this long is a loop held up: well past the driver's 5 ms timer slot and poll(2)'s
    /// millisecond.
    static let heldUp: Duration = .milliseconds(20)
    /// A hold-up counts for this long after it was seen.
    static let memory: Duration = .seconds(10)

    private var lastHeldUp: Instant?

    mutating func record(_ lateness: Duration, now: Instant) {
        if lateness >= Self.heldUp { lastHeldUp = now }
    }

    func isHeldUp(now: Instant) -> Bool {
        lastHeldUp.map { now.since($0) < Self.memory } ?? false
    }
}
