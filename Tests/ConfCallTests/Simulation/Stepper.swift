import ConfCore

/// Moves a manual clock from event to event for a set of participants and the network between them,
/// as str0m's tests do: the next instant is the earliest of every participant's deadline and the
/// network's next delivery; at it, arrived datagrams are handed to their participants, then every
/// participant is advanced.
///
/// A participant is three closures, so anything can take part (an engine, a fake peer, a probe):
/// - `nextDeadline`: when it next wants to be advanced, nil for never;
/// - `receive`: a datagram addressed to its node has arrived (called before `advance` at the same instant);
/// - `advance`: time is now `now`: handle what is due and send what is queued (into `network`).
///
/// Guards against livelock: a deadline at or before an instant every participant has already been
/// advanced to is pushed `minimumStep` later (counted in `stalledDeadlines`), and a run that takes
/// more than `maxSteps` steps stops and says so.
///
/// Not thread-safe: one test drives it from one thread.
final class Stepper<Node: Hashable> {
    typealias Delivery = SimulatedNetwork<Node>.Delivery

    struct Participant {
        let node: Node
        let nextDeadline: () -> Instant?
        let receive: (Delivery) -> Void
        let advance: (Instant) -> Void

        init(node: Node, nextDeadline: @escaping () -> Instant?, receive: @escaping (Delivery) -> Void = { _ in },
             advance: @escaping (Instant) -> Void) {
            self.node = node
            self.nextDeadline = nextDeadline
            self.receive = receive
            self.advance = advance
        }
    }

    enum Outcome: Equatable {
        case held(at: Instant)
        case timeLimitPassed(at: Instant)
        /// `maxSteps` steps went by without the condition holding or the time limit passing.
        case tooManySteps(Int, at: Instant)

        var held: Bool {
            if case .held = self { return true }
            return false
        }
    }

    let clock: ManualClock
    let network: SimulatedNetwork<Node>
    let minimumStep: Duration
    let maxSteps: Int
    private var participants: [Participant] = []
    private var advancedAt: Instant?

    /// Steps taken over every run.
    private(set) var steps = 0
    /// How many times a stale deadline (at or before an instant already stepped to) was pushed later.
    private(set) var stalledDeadlines = 0
    /// Datagrams that arrived for a node no participant stands for.
    private(set) var undeliverable = 0

    init(network: SimulatedNetwork<Node>, clock: ManualClock = ManualClock(), minimumStep: Duration = .milliseconds(1),
         maxSteps: Int = 100_000) {
        self.network = network
        self.clock = clock
        self.minimumStep = minimumStep
        self.maxSteps = maxSteps
    }

    var now: Instant { clock.now() }

    func add(_ participant: Participant) { participants.append(participant) }

    /// Steps until `condition` holds (checked before the first step and after each) or the next event
    /// would come more than `limit` after the start; then the clock stands at the limit.
    @discardableResult
    func run(until condition: () -> Bool, within limit: Duration) -> Outcome {
        let end = now + limit
        var stepsThisRun = 0
        while true {
            if condition() { return .held(at: now) }
            guard let next = nextEvent(), next <= end else {
                clock.advance(by: end.since(now))
                return .timeLimitPassed(at: end)
            }
            if stepsThisRun == maxSteps { return .tooManySteps(stepsThisRun, at: now) }
            stepsThisRun += 1
            step(to: next)
        }
    }

    /// Steps through `duration` of virtual time; true unless it took more than `maxSteps` steps.
    @discardableResult
    func run(for duration: Duration) -> Bool {
        if case .tooManySteps = run(until: { false }, within: duration) { return false }
        return true
    }

    private func nextEvent() -> Instant? {
        let now = self.now
        var next = network.nextDelivery.map { max($0, now) }
        for participant in participants {
            guard var deadline = participant.nextDeadline() else { continue }
            if deadline <= now, advancedAt == now {
                deadline = now + minimumStep
                stalledDeadlines += 1
            }
            deadline = max(deadline, now)
            next = next.map { min($0, deadline) } ?? deadline
        }
        return next
    }

    private func step(to instant: Instant) {
        clock.advance(by: instant.since(now))
        steps += 1
        for delivery in network.deliver(upTo: instant) {
            var received = false
            for participant in participants where participant.node == delivery.to {
                participant.receive(delivery)
                received = true
            }
            if !received { undeliverable += 1 }
        }
        for participant in participants { participant.advance(instant) }
        advancedAt = instant
    }
}
