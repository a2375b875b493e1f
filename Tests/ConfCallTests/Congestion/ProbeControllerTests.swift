import ConfCore
import Testing
@testable import ConfCall

/// `ProbeController` on a manual clock, with the statistics a link's estimator would give: when
/// a link probes, towards what, and how a failed trial holds it back.
@Suite struct ProbeControllerTests {
    static let t0 = Instant(nanoseconds: 10_000_000_000)
    static let spacing = Duration.milliseconds(200)

    static func statistics(target: Int, acknowledged: Int?, usage: BandwidthUsage = .normal,
                           queueDelay: Duration = .zero) -> LinkBandwidthStatistics {
        LinkBandwidthStatistics(target: target, delayBased: target, lossBound: nil, receiverEstimate: nil, acknowledged: acknowledged,
                                roundTrip: .milliseconds(40), lossFraction: 0, queueDelay: queueDelay, standingQueueDelay: queueDelay,
                                usage: usage)
    }

    /// Rate updates every 200 ms from `from` for `seconds`, the path delivering `delivered` at
    /// `target`; the clusters asked for, with when.
    static func run(_ probes: inout ProbeController, from: Instant, seconds: Double, target: Int, delivered: Int,
                    usage: BandwidthUsage = .normal, mayProbe: Bool = true) -> [(at: Instant, cluster: ProbeController.Cluster)] {
        var asked: [(Instant, ProbeController.Cluster)] = []
        var now = from
        for _ in 0..<Int(seconds * 5) {
            now = now + spacing
            let statistics = Self.statistics(target: target, acknowledged: delivered, usage: usage)
            if let cluster = probes.afterFall(target: target, statistics: statistics, updateSpacing: spacing, mayProbe: mayProbe, now: now) {
                asked.append((now, cluster))
            }
        }
        return asked
    }

    @Test func aFallIsProbedBackTowardsWhatTheLinkCarriedAtMostTwiceTheTarget() {
        var probes = ProbeController()
        // 3 s at 1 Mbit/s delivered: the peak.
        #expect(Self.run(&probes, from: Self.t0, seconds: 3, target: 1_000_000, delivered: 1_000_000).isEmpty, "no fall, no probe")
        #expect(probes.recentPeakDelivered?.bitsPerSecond == 1_000_000)
        // The target falls to 400 kbit/s: a fall. Clusters at 800 (twice the target), numbered
        // 1, 2, ..., each only once the last one's 3 s trial passed.
        let asked = Self.run(&probes, from: Self.t0 + .seconds(3), seconds: 8, target: 400_000, delivered: 400_000)
        #expect(probes.carriedBeforeFall?.bitsPerSecond == 1_000_000)
        #expect(asked.map(\.cluster.cluster) == [1, 2, 3])
        #expect(asked.allSatisfy { $0.cluster.bitsPerSecond == 800_000 })
        #expect(asked.first!.cluster.bytes == 800_000 * 40 / 1000 / 8)
        let gaps = zip(asked.dropFirst(), asked).map { $0.at.since($1.at) }
        #expect(gaps.allSatisfy { $0 >= ProbeController.probeTrial }, "\(gaps)")
        // Near what it carried (over 0.9 of it): no more probes.
        #expect(Self.run(&probes, from: Self.t0 + .seconds(11), seconds: 5, target: 950_000, delivered: 950_000).isEmpty)
    }

    @Test func aTrialFailedByOveruseDoublesTheWaitAndForgetsThePeak() {
        var probes = ProbeController()
        _ = Self.run(&probes, from: Self.t0, seconds: 3, target: 1_000_000, delivered: 1_000_000)
        let first = Self.run(&probes, from: Self.t0 + .seconds(3), seconds: 0.2, target: 400_000, delivered: 400_000)
        #expect(first.count == 1 && probes.onTrialSince != nil)
        // The next update over-uses: the trial fails, the wait doubles (1 s to 2 s, the most),
        // and the peak is what the path delivers now.
        _ = Self.run(&probes, from: Self.t0 + .milliseconds(3200), seconds: 0.2, target: 400_000, delivered: 350_000, usage: .overusing)
        #expect(probes.onTrialSince == nil && probes.probeWait == ProbeController.maximumProbeWait)
        #expect(probes.recentPeakDelivered?.bitsPerSecond == 350_000)
    }

    @Test func nothingIsAskedWhileTheOwnerSaysNo() {
        var probes = ProbeController()
        _ = Self.run(&probes, from: Self.t0, seconds: 3, target: 1_000_000, delivered: 1_000_000)
        #expect(Self.run(&probes, from: Self.t0 + .seconds(3), seconds: 5, target: 400_000, delivered: 400_000, mayProbe: false).isEmpty)
        #expect(probes.carriedBeforeFall?.bitsPerSecond == 1_000_000, "the fall is still remembered")
    }

    /// A paused link fills its estimate with padding up to what resuming needs, beside its
    /// audio, and sends a cluster towards that now and then: at most three times its target, one
    /// trial at a time. Nothing while a queue stands.
    @Test func aPausedLinkPadsAndProbesTowardsWhatResumingNeeds() {
        var probes = ProbeController()
        let quiet = Self.statistics(target: 40_000, acknowledged: 8_000)
        func paused(target: Int, wanted: Double, at now: Instant, statistics: LinkBandwidthStatistics = quiet) -> ProbeController.WhilePaused? {
            probes.whilePaused(target: target, wanted: wanted, audio: 8_000, statistics: statistics, updateSpacing: Self.spacing, now: now)
        }
        #expect(paused(target: 40_000, wanted: 200_000, at: Self.t0) == .init(paddingBytes: 32_000 / 5 / 8, cluster: .init(cluster: 1, bitsPerSecond: 120_000)))
        #expect(paused(target: 40_000, wanted: 200_000, at: Self.t0 + .seconds(1)) == .init(paddingBytes: 800, cluster: nil), "on trial")
        #expect(paused(target: 40_000, wanted: 100_000, at: Self.t0 + .seconds(3))?.cluster?.bitsPerSecond == 100_000)
        #expect(paused(target: 150_000, wanted: 100_000, at: Self.t0 + .seconds(10)) == .init(paddingBytes: 92_000 / 5 / 8, cluster: nil),
                "room enough: padding up to what resuming needs, no cluster")
        let queued = Self.statistics(target: 40_000, acknowledged: 8_000, queueDelay: .milliseconds(60))
        #expect(paused(target: 40_000, wanted: 200_000, at: Self.t0 + .seconds(20), statistics: queued) == nil)
        let overusing = Self.statistics(target: 40_000, acknowledged: 8_000, usage: .overusing)
        #expect(paused(target: 40_000, wanted: 200_000, at: Self.t0 + .seconds(30), statistics: overusing) == nil)
    }

    /// A paused link whose packets wait 60 ms at every update for 5 s, not growing, is behind a
    /// queue that is not its own: said once, then counted again. A dip under the limit, a growing
    /// queue or a link that is not paused (`afterFall`) starts the count again.
    @Test func aQueueThatStandsThroughAPauseIsNotOurs() {
        var probes = ProbeController()
        let standing = Self.statistics(target: 100_000, acknowledged: 40_000, queueDelay: .milliseconds(60))
        var now = Self.t0
        var said: [Instant] = []
        for _ in 0..<60 {  // 12 s of updates
            now = now + Self.spacing
            if probes.queueIsNotOurs(standing, now: now) { said.append(now) }
        }
        #expect(said.map { $0.since(Self.t0) } == [.milliseconds(5_200), .milliseconds(10_400)], "\(said.map { $0.since(Self.t0) })")

        var dipped = ProbeController()
        now = Self.t0
        var saidTooSoon = false
        for step in 0..<40 {  // 8 s, with a dip to 20 ms at 3.2 s
            now = now + Self.spacing
            let statistics = step == 15 ? Self.statistics(target: 100_000, acknowledged: 40_000, queueDelay: .milliseconds(20)) : standing
            if dipped.queueIsNotOurs(statistics, now: now) { saidTooSoon = true }
        }
        #expect(!saidTooSoon, "the count started again after the dip: 5 s from 3.4 s is past these 8 s")

        var growing = ProbeController()
        let overusing = Self.statistics(target: 100_000, acknowledged: 40_000, usage: .overusing, queueDelay: .milliseconds(60))
        now = Self.t0
        var saidWhileGrowing = false
        for _ in 0..<40 {
            now = now + Self.spacing
            if growing.queueIsNotOurs(overusing, now: now) { saidWhileGrowing = true }
        }
        #expect(!saidWhileGrowing, "a queue still growing may be ours")

        var resumed = ProbeController()
        now = Self.t0
        var saidAcrossAResume = false
        for step in 0..<40 {
            now = now + Self.spacing
            if step == 20 { _ = resumed.afterFall(target: 100_000, statistics: standing, updateSpacing: Self.spacing, mayProbe: true, now: now) }
            if step != 20, resumed.queueIsNotOurs(standing, now: now) { saidAcrossAResume = now.since(Self.t0) < .milliseconds(9_200) }
        }
        #expect(!saidAcrossAResume, "a link that carried video meanwhile counts again from its next pause")
    }
}
