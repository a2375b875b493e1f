import ConfCore
import Testing
@testable import ConfCall

@Suite struct PacerTests {
    static let start = Instant(nanoseconds: 5_000_000_000)

    /// Polls at every deadline until `end` or until nothing waits; returns what left and when.
    static func drain(_ pacer: inout Pacer<Int>, from: Instant, until end: Instant) -> [(at: Instant, items: [Int])] {
        var bursts: [(at: Instant, items: [Int])] = []
        var now = from
        while now <= end {
            let items = pacer.poll(now: now)
            if !items.isEmpty { bursts.append((now, items)) }
            guard let next = pacer.nextDeadline else { break }
            now = max(next, now + .nanoseconds(1))
        }
        return bursts
    }

    @Test func audioLeavesAtOnceWhileVideoWaits() throws {
        var pacer = Pacer<Int>(targetBitsPerSecond: 400_000)  // paced at 1 Mbit/s: 625 bytes per 5 ms
        for id in 0..<10 { pacer.enqueue(id, size: 1000, priority: .video, now: Self.start) }
        #expect(pacer.poll(now: Self.start) == [0])
        let later = Self.start + .milliseconds(1)
        pacer.enqueue(100, size: 120, priority: .audio, now: later)
        #expect(pacer.nextDeadline.map { $0 <= later } == true)  // due now
        #expect(pacer.poll(now: later) == [100])
        let deadline = try #require(pacer.nextDeadline)
        #expect(deadline > later)
        #expect(pacer.poll(now: later + .milliseconds(1)).isEmpty)  // the budget is still overdrawn
        #expect(pacer.poll(now: deadline) == [1])
        #expect(pacer.queuedCount == 8 && pacer.queuedBytes == 8000)
    }

    @Test func sendsInPriorityOrder() {
        var pacer = Pacer<String>(targetBitsPerSecond: 10_000_000)
        pacer.enqueue("video 1", size: 100, priority: .video, now: Self.start)
        pacer.enqueue("video 2", size: 100, priority: .video, now: Self.start)
        pacer.enqueue("resent", size: 100, priority: .retransmission, now: Self.start)
        pacer.enqueue("audio", size: 100, priority: .audio, now: Self.start)
        #expect(pacer.poll(now: Self.start) == ["audio", "resent", "video 1", "video 2"])
        #expect(pacer.nextDeadline == nil)
    }

    @Test func drainsAtThePacingRateInFiveMillisecondBursts() throws {
        var pacer = Pacer<Int>(targetBitsPerSecond: 400_000)
        #expect(pacer.pacingRate == 1_000_000)
        for id in 0..<150 { pacer.enqueue(id, size: 1000, priority: .video, now: Self.start) }  // 1.2 s at 1 Mbit/s
        let bursts = Self.drain(&pacer, from: Self.start, until: Self.start + .seconds(3))
        let gaps = zip(bursts, bursts.dropFirst()).map { $1.at.since($0.at) }
        #expect(gaps.allSatisfy { $0 >= .milliseconds(5) })
        let windowStart = Self.start + .milliseconds(200), windowEnd = Self.start + .milliseconds(1000)
        let bytes = bursts.filter { $0.at > windowStart && $0.at <= windowEnd }.reduce(0) { $0 + $1.items.count * 1000 }
        let expected = 1_000_000.0 / 8 * 0.8
        #expect(abs(Double(bytes) - expected) / expected < 0.03, "sent \(bytes) bytes in 0.8 s")
        #expect(bursts.flatMap(\.items) == Array(0..<150))
        let last = try #require(bursts.last)
        #expect(last.at.since(Self.start) >= .milliseconds(1150) && last.at.since(Self.start) <= .milliseconds(1250))
    }

    @Test func followsANewTarget() {
        var pacer = Pacer<Int>(targetBitsPerSecond: 400_000)
        pacer.setTarget(bitsPerSecond: 800_000, now: Self.start)
        #expect(pacer.pacingRate == 2_000_000)
        for id in 0..<300 { pacer.enqueue(id, size: 1000, priority: .video, now: Self.start) }
        let bursts = Self.drain(&pacer, from: Self.start, until: Self.start + .seconds(1))
        let bytes = bursts.filter { $0.at > Self.start }.reduce(0) { $0 + $1.items.count * 1000 }
        #expect(abs(Double(bytes) - 250_000) / 250_000 < 0.03)
    }

    /// Five seconds of video at the pacing rate, queued at once: the rate is raised so that all
    /// of it leaves within the two-second bound, and nothing is dropped.
    @Test func aLongQueueLeavesWithinTwoSeconds() throws {
        var pacer = Pacer<Int>(targetBitsPerSecond: 400_000)
        for id in 0..<625 { pacer.enqueue(id, size: 1000, priority: .video, now: Self.start) }
        let bursts = Self.drain(&pacer, from: Self.start, until: Self.start + .seconds(10))
        let last = try #require(bursts.last)
        #expect(last.at.since(Self.start) <= .milliseconds(2050))
        #expect(last.at.since(Self.start) >= .milliseconds(1500), "drained faster than the bound needs")
        #expect(bursts.flatMap(\.items).count == 625 && pacer.droppedCount == 0)
    }

    @Test func pastItsCapacityTheOldestVideoIsDropped() {
        var configuration = Pacer<Int>.Configuration()
        configuration.capacity = 10
        var pacer = Pacer<Int>(targetBitsPerSecond: 100_000_000, configuration: configuration)
        pacer.enqueue(-1, size: 100, priority: .audio, now: Self.start)
        for id in 0..<15 { pacer.enqueue(id, size: 100, priority: .video, now: Self.start) }
        #expect(pacer.queuedCount == 10 && pacer.droppedCount == 6)
        #expect(pacer.poll(now: Self.start) == [-1] + Array(6..<15))
        #expect(pacer.queuedBytes == 0)
    }

    @Test func nonsenseSizesAndTargetsDoNotTrap() throws {
        var pacer = Pacer<Int>(targetBitsPerSecond: -5)
        #expect(pacer.pacingRate > 0)
        pacer.enqueue(1, size: -1000, priority: .video, now: Self.start)
        pacer.enqueue(2, size: Int.max, priority: .video, now: Self.start)
        pacer.enqueue(3, size: 10, priority: .video, now: Self.start)
        #expect(pacer.poll(now: Self.start) == [1, 2])
        let deadline = try #require(pacer.nextDeadline)
        #expect(deadline > Self.start)
        pacer.setTarget(bitsPerSecond: Int.max, now: Self.start)
        #expect(pacer.poll(now: Self.start + .seconds(1)) == [3])
        #expect(pacer.poll(now: Self.start).isEmpty)  // time going back

        var configuration = Pacer<Int>.Configuration()
        configuration.burstInterval = .zero
        configuration.pacingFactor = -1
        var odd = Pacer<Int>(targetBitsPerSecond: 1_000_000, configuration: configuration)
        for id in 0..<3 { odd.enqueue(id, size: 1000, priority: .video, now: Self.start) }
        #expect(Self.drain(&odd, from: Self.start, until: Self.start + .seconds(1)).flatMap(\.items) == [0, 1, 2])
    }
}
