@testable import ConfCall
import ConfCore
import Testing

/// `SharedBottleneck` on samples 200 ms apart, as the engine takes them.
struct SharedBottleneckTests {
    static func at(_ index: Int) -> Instant { Instant(nanoseconds: UInt64(index) * 200_000_000) }

    @Test func linksWaitingAlikeAtTheSameMomentsShareAQueue() {
        var detector = SharedBottleneck<String>()
        for index in 0..<10 {
            let delay = Duration.milliseconds(30 + index % 3 * 10)
            detector.record([("bob", delay), ("cat", delay + .milliseconds(8)), ("dan", delay * 1.3)], now: Self.at(index))
        }
        #expect(detector.group(now: Self.at(10)) == ["bob", "cat", "dan"])
    }

    @Test func oneCongestedLinkGroupsNothing() {
        var detector = SharedBottleneck<String>()
        for index in 0..<20 {
            detector.record([("bob", .milliseconds(80)), ("cat", .milliseconds(2)), ("dan", nil)], now: Self.at(index))
        }
        #expect(detector.group(now: Self.at(20)).isEmpty)
    }

    @Test func delaysThatDisagreeAreDifferentQueues() {
        // Two weak peers' downlinks, each congested, one holding five times the other's delay.
        var detector = SharedBottleneck<String>()
        for index in 0..<20 {
            detector.record([("bob", .milliseconds(30)), ("cat", .milliseconds(150)), ("dan", .milliseconds(1))], now: Self.at(index))
        }
        #expect(detector.group(now: Self.at(20)).isEmpty)
    }

    @Test func aLinkSeldomInTheCoincidencesIsLeftOut() {
        var detector = SharedBottleneck<String>()
        for index in 0..<12 {
            let dan: Duration = index % 4 == 0 ? .milliseconds(40) : .milliseconds(3)
            detector.record([("bob", .milliseconds(40)), ("cat", .milliseconds(45)), ("dan", dan)], now: Self.at(index))
        }
        #expect(detector.group(now: Self.at(12)) == ["bob", "cat"])
    }

    @Test func theEvidenceAgesOut() {
        var detector = SharedBottleneck<String>()
        for index in 0..<5 { detector.record([("bob", .milliseconds(40)), ("cat", .milliseconds(40))], now: Self.at(index)) }
        #expect(detector.group(now: Self.at(5)) == ["bob", "cat"])
        // Queues empty from then on: after the window (8 s, 40 samples) the links are apart again.
        for index in 5..<30 { detector.record([("bob", .milliseconds(1)), ("cat", .milliseconds(1))], now: Self.at(index)) }
        #expect(detector.group(now: Self.at(30)) == ["bob", "cat"])
        for index in 30..<50 { detector.record([("bob", .milliseconds(1)), ("cat", .milliseconds(1))], now: Self.at(index)) }
        #expect(detector.group(now: Self.at(50)).isEmpty)
    }

    @Test func fewerThanThreeCoincidencesAreNotEnough() {
        var detector = SharedBottleneck<String>()
        for index in 0..<2 { detector.record([("bob", .milliseconds(40)), ("cat", .milliseconds(40))], now: Self.at(index)) }
        #expect(detector.group(now: Self.at(2)).isEmpty)
    }
}
