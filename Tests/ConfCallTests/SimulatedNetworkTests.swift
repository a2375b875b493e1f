import ConfCore
import Testing

/// The simulated network the engine tests run on: each impairment does what its setting says,
/// measured over enough datagrams that the tolerances are several standard deviations wide.
@Suite struct SimulatedNetworkTests {
    typealias Network = SimulatedNetwork<String>

    // MARK: Delay

    @Test func fixedDelayDeliversExactlyAtSendPlusDelay() {
        let network = Network(seed: 1, conditions: LinkConditions(delay: .milliseconds(30)))
        network.send([1, 2, 3], from: "ann", to: "bob", now: ms(5))
        network.send([4], from: "ann", to: "bob", now: ms(7))

        #expect(network.nextDelivery == ms(35))
        #expect(network.deliver(upTo: ms(35) - .nanoseconds(1)).isEmpty)
        #expect(network.deliver(upTo: ms(35)) == [Network.Delivery(from: "ann", to: "bob", bytes: [1, 2, 3], at: ms(35), sentAt: ms(5))])
        #expect(network.nextDelivery == ms(37))
        #expect(network.deliver(upTo: ms(100)).map(\.at) == [ms(37)])
        #expect(network.nextDelivery == nil)
        #expect(network.counters(from: "ann", to: "bob") == Network.Counters(sent: 2, delivered: 2))
        #expect(network.counters(from: "bob", to: "ann") == Network.Counters())
    }

    @Test func aPerfectLinkDeliversAtOnceInSendOrder() {
        let network = Network(seed: 1)
        for index in 0..<5 { network.send([UInt8(index)], from: "ann", to: "bob", now: ms(1)) }
        #expect(network.deliver(upTo: ms(1)).map(\.bytes) == [[0], [1], [2], [3], [4]])
    }

    @Test func eachDirectionHasItsOwnConditions() {
        let network = Network(seed: 1, conditions: LinkConditions(delay: .milliseconds(10)))
        network.setConditions(LinkConditions(delay: .milliseconds(50)), from: "bob", to: "ann")
        network.send([1], from: "ann", to: "bob", now: .zero)
        network.send([2], from: "bob", to: "ann", now: .zero)
        network.send([3], from: "ann", to: "cat", now: .zero)
        #expect(network.deliver(upTo: ms(100)).map { "\($0.from)>\($0.to)@\($0.at)" }
            == ["ann>bob@\(ms(10))", "ann>cat@\(ms(10))", "bob>ann@\(ms(50))"])

        network.setConditions(nil, from: "bob", to: "ann")
        #expect(network.conditions(from: "bob", to: "ann") == network.defaultConditions)
    }

    @Test func outOfRangeSettingsAreClamped() {
        let network = Network(seed: 1, conditions: LinkConditions(delay: .milliseconds(-5), reorderDelay: .milliseconds(-1), duplication: 2))
        network.send([1], from: "ann", to: "bob", now: ms(10))
        #expect(network.deliver(upTo: ms(10)).map(\.at) == [ms(10), ms(10)], "never before it was sent; always duplicated")
        network.setConditions(LinkConditions(loss: -1, burstLoss: .init(goodToBad: 5, badToGood: -3)), from: "ann", to: "bob")
        network.send([2], from: "ann", to: "bob", now: ms(20))
        network.send([3], from: "ann", to: "bob", now: ms(20))
        #expect(network.deliver(upTo: ms(20)).map(\.bytes) == [[2]], "into the bad state at once and never out")
    }

    // MARK: Loss

    @Test(arguments: [(0.1, 100_000), (0.01, 20_000), (0.3, 20_000)])
    func randomLossMatchesTheSetting(loss: Double, sent: Int) {
        let network = Network(seed: 42, conditions: LinkConditions(delay: .milliseconds(1), loss: loss))
        for _ in 0..<sent { network.send([0], from: "ann", to: "bob", now: .zero) }
        let counters = network.counters(from: "ann", to: "bob")

        // Four standard deviations of a binomial count: 0.38 % for 10 % of 100k.
        let tolerance = 4 * (loss * (1 - loss) / Double(sent)).squareRoot()
        #expect(abs(Double(counters.lost) / Double(sent) - loss) < tolerance, "\(counters.lost) of \(sent) lost")
        #expect(counters.inFlight + counters.lost == sent)
    }

    @Test func burstyLossComesInBurstsOfAbout1OverBadToGood() {
        let burst = LinkConditions.BurstLoss(goodToBad: 0.02, badToGood: 0.25)
        let lost = lostSequenceNumbers(LinkConditions(burstLoss: burst), count: 50_000, seed: 3)
        let bursts = runLengths(lost)

        // About 900 bursts of geometric length, mean 4 and deviation 3.5: the mean's standard error is ≈ 0.12.
        let meanBurst = Double(lost.count) / Double(bursts.count)
        #expect(abs(meanBurst - 4) < 0.5, "mean burst \(meanBurst) over \(bursts.count) bursts")
        // Long-run loss is goodToBad / (goodToBad + badToGood) ≈ 7.4 %.
        #expect(abs(Double(lost.count) / 50_000 - 0.02 / 0.27) < 0.015)

        // The same loss rate drawn independently has bursts of about 1 / (1 - 0.074) ≈ 1.08.
        let independent = lostSequenceNumbers(LinkConditions(loss: 0.02 / 0.27), count: 20_000, seed: 3)
        let independentMean = Double(independent.count) / Double(runLengths(independent).count)
        #expect(independentMean < 1.2, "independent loss's mean burst \(independentMean)")
    }

    @Test func burstyLossWithLossInGoodLosesSomeOutsideBursts() {
        let burst = LinkConditions.BurstLoss(goodToBad: 0, badToGood: 1, lossInBad: 1, lossInGood: 0.05)
        let lost = lostSequenceNumbers(LinkConditions(burstLoss: burst), count: 20_000, seed: 9)
        #expect(abs(Double(lost.count) / 20_000 - 0.05) < 0.01, "never leaves the good state, loses 5 % in it")
    }

    // MARK: Duplication

    @Test func duplicationDeliversSomeDatagramsTwice() {
        let network = Network(seed: 5, conditions: LinkConditions(delay: .milliseconds(10), duplication: 0.2))
        let sent = 5_000
        for sequence in 0..<sent { network.send(bytes(sequence), from: "ann", to: "bob", now: ms(sequence)) }
        let deliveries = network.deliver(upTo: ms(sent + 10))
        let counters = network.counters(from: "ann", to: "bob")

        var copies: [Int: Int] = [:]
        for delivery in deliveries { copies[sequenceNumber(delivery.bytes), default: 0] += 1 }
        #expect(copies.count == sent, "every datagram arrives")
        #expect(copies.values.filter { $0 == 2 }.count == counters.duplicated)
        #expect(copies.values.allSatisfy { $0 <= 2 })
        #expect(deliveries.count == sent + counters.duplicated)
        // Standard deviation of the count is 28.
        #expect(abs(counters.duplicated - 1_000) < 120, "\(counters.duplicated) duplicated")
    }

    // MARK: Reordering

    @Test func jitterWiderThanTheSpacingReorders() {
        let reordered = overtakenCount(LinkConditions(delay: .milliseconds(50), jitter: .milliseconds(10)), spacing: .milliseconds(1))
        #expect(reordered > 100, "\(reordered) of 1000 overtaken")
    }

    @Test func noJitterNoReordering() {
        #expect(overtakenCount(LinkConditions(delay: .milliseconds(50)), spacing: .milliseconds(1)) == 0)
        #expect(overtakenCount(LinkConditions(delay: .milliseconds(50)), spacing: .zero) == 0)
        // Jitter narrower than half the spacing cannot swap two datagrams either.
        #expect(overtakenCount(LinkConditions(delay: .milliseconds(50), jitter: .milliseconds(4)), spacing: .milliseconds(10)) == 0)
    }

    @Test func reorderProbabilityHoldsDatagramsBack() {
        let conditions = LinkConditions(delay: .milliseconds(5), reorder: 0.05, reorderDelay: .milliseconds(20))
        let reordered = overtakenCount(conditions, spacing: .milliseconds(1), count: 5_000)
        // About 250 held back, each overtaken by the next 20; standard deviation ≈ 15.
        #expect(abs(reordered - 250) < 60, "\(reordered) of 5000 overtaken")
    }

    // MARK: Bandwidth cap

    @Test func aCappedLinkAddsSerialisationDelay() {
        let network = Network(seed: 1, conditions: LinkConditions(delay: .milliseconds(10), bandwidth: 1_000_000))
        network.send([UInt8](repeating: 0, count: 1000), from: "ann", to: "bob", now: .zero)
        network.send([UInt8](repeating: 0, count: 500), from: "ann", to: "bob", now: .zero)
        // 1000 bytes at 1 Mbit/s take 8 ms on the wire; the second waits for the first, then takes 4 ms.
        #expect(network.deliver(upTo: ms(1000)).map(\.at) == [ms(18), ms(22)])
    }

    @Test func aOneMegabitLinkCarriesOneMegabitUnderOverload() {
        let cap = 1_000_000
        let network = Network(seed: 1, conditions: LinkConditions(delay: .milliseconds(20), bandwidth: cap, queueLimit: 50_000))
        // Offer 2 Mbit/s for 3 s: 1000-byte datagrams every 4 ms.
        var deliveries: [Network.Delivery] = []
        for index in 0..<750 {
            network.send(bytes(index, size: 1000), from: "ann", to: "bob", now: ms(4 * index))
            deliveries += network.deliver(upTo: ms(4 * index))
        }
        deliveries += network.deliver(upTo: ms(10000))

        let window = deliveries.filter { $0.at > ms(1000) && $0.at <= ms(3000) }
        let carried = Double(window.reduce(0) { $0 + $1.bytes.count } * 8) / 2
        #expect(abs(carried - Double(cap)) / Double(cap) < 0.01, "carried \(carried) bit/s")
        let counters = network.counters(from: "ann", to: "bob")
        #expect(counters.droppedByQueue > 300, "about half of what was offered is dropped: \(counters.droppedByQueue)")
        #expect(counters.delivered + counters.droppedByQueue == 750)
    }

    @Test func queueingDelayGrowsUnderOverloadAndDropsStartWhenTheQueueIsFull() throws {
        let queueLimit = 50_000
        let network = Network(seed: 1, conditions: LinkConditions(bandwidth: 1_000_000, queueLimit: queueLimit))
        var firstDrop: Instant?
        var deliveries: [Network.Delivery] = []
        for index in 0..<500 {  // 2 Mbit/s offered for 2 s
            let now = ms(4 * index)
            network.send(bytes(index, size: 1000), from: "ann", to: "bob", now: now)
            if firstDrop == nil, network.counters(from: "ann", to: "bob").droppedByQueue > 0 { firstDrop = now }
            deliveries += network.deliver(upTo: now)
        }
        deliveries += network.deliver(upTo: ms(10000))

        // The backlog grows at 2 - 1 = 1 Mbit/s, so 50 kB fill in 0.4 s.
        let fill = try #require(firstDrop)
        #expect(fill >= ms(390) && fill <= ms(410), "first drop at \(fill)")

        let queueing = deliveries.map { $0.at.since($0.sentAt) - .milliseconds(8) }  // minus serialisation
        let beforeFull = deliveries.indices.filter { deliveries[$0].sentAt < ms(390) }
        #expect(zip(beforeFull, beforeFull.dropFirst()).allSatisfy { queueing[$0] < queueing[$1] }, "grows while the queue fills")
        let longest = queueing.max()!
        // A full queue holds 50 kB: 400 ms at 1 Mbit/s.
        #expect(longest >= .milliseconds(390) && longest <= .milliseconds(400), "longest queueing delay \(longest)")
    }

    /// A token bucket, as `tc ... tbf burst 8000` is: after a quiet spell 8 kB leave at once; then
    /// the rate holds, and over a long overload the link still carries only its rate.
    @Test func aBurstLeavesAtOnceAfterAQuietSpellAndTheRateHoldsAfter() {
        let network = Network(seed: 1, conditions: LinkConditions(bandwidth: 1_000_000, queueLimit: 50_000, burst: 8_000))
        for index in 0..<10 { network.send(bytes(index, size: 1000), from: "ann", to: "bob", now: ms(1000)) }
        // Eight fit the bucket; the ninth waits for 1000 bytes of credit (8 ms at 1 Mbit/s), the tenth 8 ms more.
        #expect(network.deliver(upTo: ms(2000)).map(\.at) == Array(repeating: ms(1000), count: 8) + [ms(1008), ms(1016)])

        var deliveries: [Network.Delivery] = []
        for index in 0..<750 {  // 2 Mbit/s offered for 3 s
            network.send(bytes(index, size: 1000), from: "ann", to: "bob", now: ms(3000 + 4 * index))
            deliveries += network.deliver(upTo: ms(3000 + 4 * index))
        }
        deliveries += network.deliver(upTo: ms(10000))
        let window = deliveries.filter { $0.at > ms(4000) && $0.at <= ms(6000) }
        let carried = Double(window.reduce(0) { $0 + $1.bytes.count } * 8) / 2
        #expect(abs(carried - 1_000_000) / 1_000_000 < 0.01, "carried \(carried) bit/s")
    }

    @Test func underTheCapNothingQueues() {
        let network = Network(seed: 1, conditions: LinkConditions(bandwidth: 1_000_000, queueLimit: 10_000))
        for index in 0..<250 { network.send(bytes(index, size: 1000), from: "ann", to: "bob", now: ms(10 * index)) }  // 0.8 Mbit/s
        let deliveries = network.deliver(upTo: ms(10000))
        #expect(deliveries.count == 250)
        #expect(deliveries.allSatisfy { $0.at.since($0.sentAt) == .milliseconds(8) })
    }

    // MARK: Partitions

    @Test func aPartitionDropsBothWaysIncludingWhatIsOnItsWayAndHeals() {
        let network = Network(seed: 1, conditions: LinkConditions(delay: .milliseconds(50)))
        network.send([1], from: "ann", to: "bob", now: .zero)
        network.send([2], from: "ann", to: "cat", now: .zero)
        network.partition("ann", "bob")
        network.send([3], from: "ann", to: "bob", now: ms(10))
        network.send([4], from: "bob", to: "ann", now: ms(10))
        #expect(network.isPartitioned(from: "bob", to: "ann"))
        #expect(network.deliver(upTo: ms(100)).map(\.bytes) == [[2]], "only the pair that was not cut")

        network.heal("ann", "bob")
        network.send([5], from: "ann", to: "bob", now: ms(100))
        network.send([6], from: "bob", to: "ann", now: ms(100))
        #expect(network.deliver(upTo: ms(200)).map(\.bytes) == [[5], [6]])
        #expect(network.counters(from: "ann", to: "bob") == Network.Counters(sent: 3, delivered: 1, partitioned: 2))
        #expect(network.counters(from: "bob", to: "ann") == Network.Counters(sent: 2, delivered: 1, partitioned: 1))
    }

    @Test func aOneWayPartitionDropsOneDirection() {
        let network = Network(seed: 1)
        network.partition(from: "ann", to: "bob")
        network.send([1], from: "ann", to: "bob", now: .zero)
        network.send([2], from: "bob", to: "ann", now: .zero)
        #expect(network.deliver(upTo: .zero).map(\.bytes) == [[2]])
    }

    @Test func anIsolatedNodeReachesNobodyUntilItRejoins() {
        let network = Network(seed: 1, conditions: LinkConditions(delay: .milliseconds(5)))
        network.send([0], from: "bob", to: "cat", now: .zero)
        network.isolate("cat")
        for (from, to) in [("ann", "cat"), ("cat", "ann"), ("bob", "cat"), ("ann", "bob")] {
            network.send([1], from: from, to: to, now: ms(1))
        }
        #expect(network.deliver(upTo: ms(50)).map { "\($0.from)>\($0.to)" } == ["ann>bob"])

        network.rejoin("cat")
        network.send([2], from: "cat", to: "ann", now: ms(50))
        #expect(network.deliver(upTo: ms(100)).map { "\($0.from)>\($0.to)" } == ["cat>ann"])
        #expect(network.counters(from: "bob", to: "cat").partitioned == 2)
    }

    @Test func healAllEndsPartitionsAndIsolations() {
        let network = Network(seed: 1)
        network.partition("ann", "bob")
        network.isolate("cat")
        network.healAll()
        network.send([1], from: "ann", to: "bob", now: .zero)
        network.send([2], from: "cat", to: "ann", now: .zero)
        #expect(network.deliver(upTo: .zero).count == 2)
    }

    // MARK: Seeds and counters

    @Test func theSameSeedGivesTheSameTraceAndAnotherSeedAnotherOne() {
        let first = trace(seed: 11), again = trace(seed: 11), other = trace(seed: 12)
        #expect(first.count > 1_000)
        #expect(first == again)
        #expect(first != other)
    }

    /// Within one process two runs share the hash seed, so the test above cannot see state that
    /// depends on hashing order; a recorded fingerprint shows a seed gives the same run in every process.
    /// Re-record it only when the model changes on purpose (the order of draws, a new stage).
    @Test func aSeedGivesTheSameTraceInEveryProcess() {
        #expect(fingerprint(trace(seed: 11)) == 11_585_735_367_119_114_742)
    }

    @Test func everyDatagramIsAccountedFor() {
        let network = Network(seed: 8, conditions: everything)
        for index in 0..<3_000 {
            network.send(bytes(index, size: 1200), from: index % 3 == 0 ? "ann" : "bob", to: index % 2 == 0 ? "cat" : "ann", now: ms(index))
            if index == 1_000 { network.partition("bob", "cat") }
            if index == 2_000 { network.heal("bob", "cat") }
            _ = network.deliver(upTo: ms(index))
        }
        let totals = network.totals
        #expect(totals.sent == 3_000)
        #expect(totals.sent + totals.duplicated == totals.delivered + totals.lost + totals.partitioned + totals.droppedByQueue + totals.inFlight)
        #expect(totals.lost > 0 && totals.duplicated > 0 && totals.droppedByQueue > 0 && totals.partitioned > 0 && totals.inFlight > 0)
        _ = network.deliver(upTo: ms(100000))
        #expect(network.totals.inFlight == 0)
    }

    // MARK: Helpers

    /// Every impairment at once, with a cap the traffic in `trace` and `everyDatagramIsAccountedFor` overloads.
    private var everything: LinkConditions {
        LinkConditions(delay: .milliseconds(30), jitter: .milliseconds(8), reorder: 0.02, loss: 0.05,
                       burstLoss: .init(goodToBad: 0.01, badToGood: 0.3), duplication: 0.03,
                       bandwidth: 2_000_000, queueLimit: 20_000)
    }

    private func trace(seed: UInt64) -> [Network.Delivery] {
        let network = Network(seed: seed, conditions: everything)
        var deliveries: [Network.Delivery] = []
        for index in 0..<2_000 {
            let now = Instant.zero + .microseconds(1_500 * index)
            network.send(bytes(index, size: 400 + index % 800), from: "ann", to: "bob", now: now)
            network.send(bytes(index, size: 100), from: "bob", to: "ann", now: now)
            deliveries += network.deliver(upTo: now)
        }
        return deliveries + network.deliver(upTo: ms(100000))
    }

    /// FNV-1a over every delivery's ends, arrival time and bytes.
    private func fingerprint(_ deliveries: [Network.Delivery]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ byte: UInt8) { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        for delivery in deliveries {
            for byte in (delivery.from + ">" + delivery.to).utf8 { mix(byte) }
            withUnsafeBytes(of: delivery.at.nanoseconds.littleEndian) { $0.forEach(mix) }
            delivery.bytes.forEach(mix)
        }
        return hash
    }

    /// Which of `count` datagrams sent one after another over `conditions` (without delay or
    /// duplication) are lost, ascending.
    private func lostSequenceNumbers(_ conditions: LinkConditions, count: Int, seed: UInt64) -> [Int] {
        let network = Network(seed: seed, conditions: conditions)
        var lost: [Int] = []
        for sequence in 0..<count {
            network.send([], from: "ann", to: "bob", now: .zero)
            if network.deliver(upTo: .zero).isEmpty { lost.append(sequence) }
        }
        return lost
    }

    /// The lengths of the runs of consecutive numbers in an ascending list.
    private func runLengths(_ sorted: [Int]) -> [Int] {
        var runs: [Int] = []
        for (index, value) in sorted.enumerated() {
            if index > 0, sorted[index - 1] == value - 1 { runs[runs.count - 1] += 1 } else { runs.append(1) }
        }
        return runs
    }

    /// How many of `count` datagrams sent `spacing` apart arrive after one sent later than them.
    private func overtakenCount(_ conditions: LinkConditions, spacing: Duration, count: Int = 1_000) -> Int {
        let network = Network(seed: 21, conditions: conditions)
        for sequence in 0..<count {
            network.send(bytes(sequence), from: "ann", to: "bob", now: .zero + spacing * sequence)
        }
        let order = network.deliver(upTo: ms(1000000)).map { sequenceNumber($0.bytes) }
        #expect(order.count == count)
        var overtaken = 0, highestSoFar = -1
        for sequence in order {  // overtaken if something sent later arrived earlier
            if sequence < highestSoFar { overtaken += 1 }
            highestSoFar = max(highestSoFar, sequence)
        }
        return overtaken
    }
}

private func ms(_ milliseconds: Int) -> Instant { .zero + .milliseconds(milliseconds) }

/// A datagram whose first four bytes carry its sequence number.
private func bytes(_ sequence: Int, size: Int = 4) -> [UInt8] {
    var bytes = withUnsafeBytes(of: UInt32(sequence).bigEndian, Array.init)
    bytes += [UInt8](repeating: 0, count: max(0, size - 4))
    return bytes
}

private func sequenceNumber(_ bytes: [UInt8]) -> Int {
    bytes.prefix(4).reduce(0) { $0 << 8 | Int($1) }
}
