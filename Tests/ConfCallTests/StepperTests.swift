import ConfCore
import Testing

/// The stepping harness: time moves from event to event, deliveries reach their participants, and a
/// participant that never lets time move cannot hang a test.
@Suite struct StepperTests {
    typealias Network = SimulatedNetwork<String>

    /// Sends a ping to `peer` every `interval` from its first deadline on; answers every ping with a pong.
    final class Pinger {
        let node: String, peer: String
        let network: Network
        var interval: Duration?
        var nextPing: Instant?
        var pongsReceived: [Instant] = []
        var pingsReceived = 0
        private var outbox: [[UInt8]] = []
        private(set) var advancedAt: [Instant] = []

        init(_ node: String, peer: String, network: Network, firstPing: Instant? = nil, interval: Duration? = nil) {
            self.node = node
            self.peer = peer
            self.network = network
            nextPing = firstPing
            self.interval = interval
        }

        var participant: Stepper<String>.Participant {
            .init(node: node, nextDeadline: { self.nextPing }, receive: receive, advance: advance)
        }

        private func receive(_ delivery: Network.Delivery) {
            if delivery.bytes == [0] {
                pingsReceived += 1
                outbox.append([1])
            } else {
                pongsReceived.append(delivery.at)
            }
        }

        private func advance(_ now: Instant) {
            advancedAt.append(now)
            if let due = nextPing, due <= now {
                outbox.append([0])
                nextPing = interval.map { due + $0 }
            }
            for bytes in outbox { network.send(bytes, from: node, to: peer, now: now) }
            outbox.removeAll()
        }
    }

    @Test func stepsToEveryDeliveryAndDeadlineUntilTheConditionHolds() {
        let network = Network(seed: 1, conditions: LinkConditions(delay: .milliseconds(10)))
        let stepper = Stepper(network: network)
        let ann = Pinger("ann", peer: "bob", network: network, firstPing: .zero, interval: .milliseconds(100))
        let bob = Pinger("bob", peer: "ann", network: network)
        stepper.add(ann.participant)
        stepper.add(bob.participant)

        let outcome = stepper.run(until: { ann.pongsReceived.count == 3 }, within: .seconds(1))

        #expect(outcome == .held(at: ms(220)))
        #expect(ann.pongsReceived == [ms(20), ms(120), ms(220)])
        #expect(bob.pingsReceived == 3)
        // Pings at 0, 100, 200, their arrivals at +10 and the pongs' at +20: nothing in between.
        #expect(ann.advancedAt == [0, 10, 20, 100, 110, 120, 200, 210, 220].map(ms))
        #expect(stepper.now == ms(220))
        #expect(stepper.stalledDeadlines == 0)
    }

    @Test func aTimeLimitStopsTheRunWithTheClockAtTheLimit() {
        let network = Network(seed: 1, conditions: LinkConditions(delay: .milliseconds(10)))
        let stepper = Stepper(network: network, clock: ManualClock(ms(1000)))
        let ann = Pinger("ann", peer: "bob", network: network, firstPing: ms(1030), interval: .milliseconds(30))
        stepper.add(ann.participant)

        let outcome = stepper.run(until: { false }, within: .milliseconds(100))

        #expect(outcome == .timeLimitPassed(at: ms(1100)))
        #expect(stepper.now == ms(1100))
        #expect(ann.advancedAt == [1030, 1040, 1060, 1070, 1090, 1100].map(ms), "its pings, and their arrivals at nobody")
        #expect(stepper.undeliverable == 3, "bob takes no part")
        #expect(stepper.run(for: .milliseconds(50)))
        #expect(stepper.now == ms(1150))
    }

    @Test func aConditionThatAlreadyHoldsTakesNoStep() {
        let network = Network(seed: 1)
        let stepper = Stepper(network: network)
        let ann = Pinger("ann", peer: "bob", network: network, firstPing: .zero, interval: .milliseconds(1))
        stepper.add(ann.participant)

        #expect(stepper.run(until: { true }, within: .seconds(1)) == .held(at: .zero))
        #expect(stepper.steps == 0 && ann.advancedAt.isEmpty)
    }

    @Test func withNothingScheduledTheClockJumpsToTheLimit() {
        let stepper = Stepper(network: Network(seed: 1))
        #expect(stepper.run(until: { false }, within: .seconds(5)) == .timeLimitPassed(at: ms(5000)))
        #expect(stepper.steps == 0)
    }

    @Test func aDeadlineDueBeforeTheFirstStepIsHandledAtOnce() {
        let network = Network(seed: 1, conditions: LinkConditions(delay: .milliseconds(5)))
        let stepper = Stepper(network: network, clock: ManualClock(ms(500)))
        let ann = Pinger("ann", peer: "bob", network: network, firstPing: ms(100))
        stepper.add(ann.participant)
        stepper.run(for: .milliseconds(10))
        #expect(ann.advancedAt == [ms(500), ms(505)], "due in the past: handled now, not pushed later")
        #expect(stepper.stalledDeadlines == 0)
    }

    @Test func aDeadlineThatNeverMovesIsSteppedPastAMillisecondAtATime() {
        let stepper = Stepper(network: Network(seed: 1))
        var advanced: [Instant] = []
        stepper.add(.init(node: "stuck", nextDeadline: { .zero }, advance: { advanced.append($0) }))

        let outcome = stepper.run(until: { false }, within: .milliseconds(10))

        #expect(outcome == .timeLimitPassed(at: ms(10)))
        #expect(advanced == (0...10).map(ms))
        #expect(stepper.stalledDeadlines == 11, "once more at 10 ms, which finds the next step past the limit")
    }

    @Test func aZeroDelayLoopThatNeverLetsTimeMoveIsReported() {
        let network = Network(seed: 1)
        let stepper = Stepper(network: network, maxSteps: 500)
        let ann = Pinger("ann", peer: "bob", network: network, firstPing: .zero)
        stepper.add(ann.participant)
        // bob answers everything with a ping, at the same instant, and ann answers every ping: forever.
        stepper.add(.init(node: "bob", nextDeadline: { nil }, receive: { network.send([0], from: "bob", to: "ann", now: $0.at) },
                          advance: { _ in }))

        let outcome = stepper.run(until: { false }, within: .seconds(1))

        #expect(outcome == .tooManySteps(500, at: .zero))
        #expect(!stepper.run(for: .seconds(1)))
    }
}

private func ms(_ milliseconds: Int) -> Instant { .zero + .milliseconds(milliseconds) }
