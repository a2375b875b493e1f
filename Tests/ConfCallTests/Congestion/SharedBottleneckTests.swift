@testable import ConfCall
import ConfCore
import ConfWire
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

/// `SharedBottleneck(presumed: true)`, as for our uplink: the links that get our video share it
/// until one is shown to wait behind a queue of its own.
struct PresumedSharedBottleneckTests {
    static let at = SharedBottleneckTests.at

    @Test func theCandidatesShareBeforeAnyQueue() {
        var detector = SharedBottleneck<String>(presumed: true)
        detector.record([("bob", nil), ("cat", .milliseconds(1)), ("dan", .milliseconds(2))], now: Self.at(0))
        #expect(detector.group(now: Self.at(0), presuming: ["bob", "cat", "dan"]) == ["bob", "cat", "dan"])
        // A link that does not get our video (not a candidate) joins only on evidence.
        #expect(detector.group(now: Self.at(0), presuming: ["bob", "cat"]) == ["bob", "cat"])
        // One candidate is no group.
        #expect(detector.group(now: Self.at(0), presuming: ["bob"]).isEmpty)
    }

    @Test func theGroupOutlivesTheEvidenceThatAgesOutOfTheWindow() {
        var detector = SharedBottleneck<String>(presumed: true)
        for index in 0..<5 { detector.record([("bob", .milliseconds(40)), ("cat", .milliseconds(40))], now: Self.at(index)) }
        // Queues short from then on, for far longer than the window: the links still share.
        for index in 5..<200 { detector.record([("bob", .milliseconds(2)), ("cat", .milliseconds(3))], now: Self.at(index)) }
        #expect(detector.group(now: Self.at(200), presuming: ["bob", "cat"]) == ["bob", "cat"])
    }

    @Test func aLinkThatWaitsAloneIsApartAndStaysApartWhenItsQueueEmpties() {
        var detector = SharedBottleneck<String>(presumed: true)
        let links = ["bob", "cat", "dan"]
        // cat's own downlink is capped: its packets wait, the others' do not.
        for index in 0..<2 { detector.record([("bob", .milliseconds(2)), ("cat", .milliseconds(90)), ("dan", .milliseconds(1))], now: Self.at(index)) }
        #expect(detector.group(now: Self.at(2), presuming: links) == ["bob", "cat", "dan"], "two samples are not yet enough")
        detector.record([("bob", .milliseconds(2)), ("cat", .milliseconds(90)), ("dan", .milliseconds(1))], now: Self.at(2))
        #expect(detector.group(now: Self.at(3), presuming: links) == ["bob", "dan"])
        // cat's queue drains (its share is its own estimate again) and stays short: still apart.
        for index in 3..<140 { detector.record([("bob", .milliseconds(2)), ("cat", .milliseconds(4)), ("dan", .milliseconds(1))], now: Self.at(index)) }
        #expect(detector.group(now: Self.at(140), presuming: links) == ["bob", "dan"])
    }

    @Test func oneLinksOwnBurstOnASharedUplinkIsNotWaitingAlone() {
        // Each feedback's mean carries its own link's frames: bob's caught a burst, the others' did not.
        var detector = SharedBottleneck<String>(presumed: true)
        for index in 0..<20 {
            detector.record([("bob", .milliseconds(32)), ("cat", .milliseconds(12)), ("dan", .milliseconds(14))], now: Self.at(index))
        }
        #expect(detector.apart.isEmpty)
    }

    @Test func aLinkThatWaitsAloneWithAnotherIsNotApart() {
        // Two links' queues agree; the third's is far from them: only the third waits alone.
        var detector = SharedBottleneck<String>(presumed: true)
        for index in 0..<10 {
            detector.record([("bob", .milliseconds(30)), ("cat", .milliseconds(36)), ("dan", .milliseconds(200))], now: Self.at(index))
        }
        #expect(detector.apart == ["dan"])
        #expect(detector.group(now: Self.at(10), presuming: ["bob", "cat", "dan"]) == ["bob", "cat"])
    }

    @Test func aLinkThatDoesNotWaitWhileTheOthersWaitTogetherIsApart() {
        // bob is on ann's LAN; cat's and dan's links cross her capped uplink and fill it.
        var detector = SharedBottleneck<String>(presumed: true)
        for index in 0..<25 { detector.record([("bob", .milliseconds(1)), ("cat", .milliseconds(2)), ("dan", .milliseconds(3))], now: Self.at(index)) }
        for index in 25..<28 {
            detector.record([("bob", .milliseconds(1)), ("cat", .milliseconds(40)), ("dan", .milliseconds(45))], now: Self.at(index))
        }
        #expect(detector.apart == ["bob"])
        #expect(detector.group(now: Self.at(28), presuming: ["bob", "cat", "dan"]) == ["cat", "dan"])
    }

    @Test func aLinkThatStartsWhileTheQueueStandsIsNotApart() {
        // dan connects while bob's and cat's first key frames stand in the uplink's queue: his
        // first packets wait in it too, so he takes it for the empty path and reads it as nothing.
        var detector = SharedBottleneck<String>(presumed: true)
        for index in 0..<10 {
            detector.record([("bob", .milliseconds(120)), ("cat", .milliseconds(125)), ("dan", .milliseconds(1))], now: Self.at(index))
        }
        #expect(detector.apart.isEmpty)
        #expect(detector.group(now: Self.at(10), presuming: ["bob", "cat", "dan"]) == ["bob", "cat", "dan"])
    }

    @Test func aLinkWhoseFeedbackLagsOnceIsNotApart() {
        // The queue builds: one sample in four, dan's last feedback predates it.
        var detector = SharedBottleneck<String>(presumed: true)
        for index in 0..<40 {
            let dan: Duration = index % 4 == 0 ? .milliseconds(2) : .milliseconds(38)
            detector.record([("bob", .milliseconds(40)), ("cat", .milliseconds(45)), ("dan", dan)], now: Self.at(index))
        }
        #expect(detector.apart.isEmpty)
        #expect(detector.group(now: Self.at(40), presuming: ["bob", "cat", "dan"]) == ["bob", "cat", "dan"])
    }

    @Test func aLinkApartComesBackWhenItQueuesWithTheOthers() {
        var detector = SharedBottleneck<String>(presumed: true)
        let links = ["bob", "cat", "dan"]
        for index in 0..<5 { detector.record([("bob", .milliseconds(2)), ("cat", .milliseconds(90)), ("dan", .milliseconds(1))], now: Self.at(index)) }
        #expect(detector.apart == ["cat"])
        // Later the uplink fills and all three wait alike, more often than cat waited alone.
        for index in 60..<65 { detector.record([("bob", .milliseconds(40)), ("cat", .milliseconds(45)), ("dan", .milliseconds(42))], now: Self.at(index)) }
        #expect(detector.apart.isEmpty)
        #expect(detector.group(now: Self.at(65), presuming: links) == ["bob", "cat", "dan"])
    }

    @Test func aLinkFarUnderTheBestIsNotPresumedToShare() {
        // cat's peer bounds his estimate by REMB (its downlink is shared): no queue may ever show
        // it, and the group's rate (the least of theirs) would be his.
        let bob = ParticipantID("p2"), cat = ParticipantID("p3"), dan = ParticipantID("p4")
        #expect(CallEngine.presumedSharing([(bob, 1_200_000), (cat, 90_000), (dan, 1_000_000)]) == [bob, dan])
        // Drifting apart on one uplink, as kept runs did, is not that far.
        #expect(CallEngine.presumedSharing([(bob, 177_000), (cat, 182_000), (dan, 286_000)]) == [bob, cat, dan])
    }

    @Test func aLinkThatLeavesIsForgotten() {
        var detector = SharedBottleneck<String>(presumed: true)
        for index in 0..<5 { detector.record([("bob", .milliseconds(2)), ("cat", .milliseconds(90))], now: Self.at(index)) }
        #expect(detector.apart == ["cat"])
        detector.record([("bob", .milliseconds(2))], now: Self.at(5))
        #expect(detector.apart.isEmpty)
        // Back (its link set up again): one more wait alone does not put it apart at once.
        detector.record([("bob", .milliseconds(2)), ("cat", .milliseconds(90))], now: Self.at(6))
        #expect(detector.apart.isEmpty)
        #expect(detector.group(now: Self.at(6), presuming: ["bob", "cat"]) == ["bob", "cat"])
    }

    @Test func aLinkApartIsPresumedAgainOnceItHasNotBeenSeenApartForLong() {
        var detector = SharedBottleneck<String>(presumed: true)
        for index in 0..<5 { detector.record([("bob", .milliseconds(2)), ("cat", .milliseconds(90)), ("dan", .milliseconds(1))], now: Self.at(index)) }
        #expect(detector.apart == ["cat"])
        // No queue anywhere for 29 s: still apart; then past `apartMemory` (30 s), presumed again.
        for index in 5..<150 { detector.record([("bob", .milliseconds(2)), ("cat", .milliseconds(3)), ("dan", .milliseconds(1))], now: Self.at(index)) }
        #expect(detector.apart == ["cat"])
        for index in 150..<160 { detector.record([("bob", .milliseconds(2)), ("cat", .milliseconds(3)), ("dan", .milliseconds(1))], now: Self.at(index)) }
        #expect(detector.apart.isEmpty)
    }
}
