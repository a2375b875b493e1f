import ConfCall
import ConfCore
import ConfWire
import Testing

/// Congestion control and temporal layers in the engine, on the simulated network: engines
/// sending 20 ms audio frames and layered video sized to what the engine asks of the encoder,
/// over links with a bandwidth cap and a drop-tail queue.
@Suite struct CallEngineCongestionTests {
    /// Everyone in the room, connected, sending audio and layered video (--video-bitrate `videoKbps`):
    /// `SimulatedCall.connectedMesh`.
    func mesh(_ names: [String], seed: UInt64, videoKbps: Int = 600,
              configure: (String, inout CallEngine.Configuration) -> Void = { _, _ in },
              beforeJoining: (SimulatedCall, [SimulatedCall.Participant]) -> Void = { _, _ in })
        throws -> (SimulatedCall, [SimulatedCall.Participant])
    {
        try SimulatedCall.connectedMesh(names, seed: seed, media: .audioAndVideo(kbps: videoKbps), configure: configure, beforeJoining: beforeJoining)
    }

    func cap(_ call: SimulatedCall, from: SimulatedCall.Participant, to: SimulatedCall.Participant, bitsPerSecond: Int?) {
        var conditions = LinkConditions(delay: .milliseconds(20))
        conditions.bandwidth = bitsPerSecond
        // A queue of half a second at the capped rate, as `tc ... tbf latency 500ms` would keep.
        if let bitsPerSecond { conditions.queueLimit = max(3_000, bitsPerSecond / 16) }
        call.network.setConditions(conditions, from: from.id, to: to.id)
    }

    /// `people[0]`'s uplink carries `bitsPerSecond` for all her links, with a queue of half a
    /// second (a home uplink), and every path from her takes 20 ms.
    static func shareUplink(_ call: SimulatedCall, of people: [SimulatedCall.Participant], bitsPerSecond: Int) {
        for peer in people.dropFirst() {
            call.network.setConditions(LinkConditions(delay: .milliseconds(20)), between: people[0].id, and: peer.id)
        }
        call.network.setUplink(.init(bandwidth: bitsPerSecond, queueLimit: bitsPerSecond / 16), for: people[0].id)
    }

    /// `who`'s link-stats figures for `peer`, in order.
    func linkStats(_ who: SimulatedCall.Participant, for peer: SimulatedCall.Participant, after: Instant = .zero)
        -> [CallEvent.LinkStatistics]
    {
        who.events.filter { $0.at >= after }.flatMap { entry -> [CallEvent.LinkStatistics] in
            if case .linkStats(let links) = entry.event { links.filter { $0.peer == peer.id } } else { [] }
        }
    }

    @Test func aLinkCappedAtOneMegabitConvergesWithinFiveSeconds() throws {
        let (call, people) = try mesh(["ann", "bob"], seed: 31, videoKbps: 2_000)
        let ann = people[0], bob = people[1]
        cap(call, from: ann, to: bob, bitsPerSecond: 1_000_000)
        let start = call.now
        call.run(for: .seconds(12))
        let settled = linkStats(ann, for: bob, after: start + .seconds(5))
        #expect(settled.count >= 6)
        let estimates = settled.map(\.estimateKbps), queues = settled.map(\.queueDelay.milliseconds), sent = settled.map(\.sentKbps)
        print("1 Mbit/s cap, from 5 s: estimate \(estimates) kbit/s, sent \(sent) kbit/s, queue delay \(queues) ms")
        #expect(estimates.allSatisfy { $0 >= 450 && $0 <= 1_050 }, "estimates \(estimates)")
        #expect(sent.allSatisfy { $0 <= 1_050 } && sent.reduce(0, +) / Double(sent.count) >= 400, "sent \(sent)")
        #expect(queues.allSatisfy { $0 < 150 }, "queue delays \(queues)")
        // Audio got through all along: 7 s of 20 ms frames, nearly all received.
        #expect(bob.receivedAudioFrames[ann.id, default: 0] > 500)
    }

    @Test func oneWeakLinkCostsTheOthersNothing() throws {
        let (call, people) = try mesh(["ann", "bob", "cat"], seed: 32) { _, configuration in configuration.smallVideo = true }
        let ann = people[0], bob = people[1], cat = people[2]
        cap(call, from: ann, to: cat, bitsPerSecond: 300_000)
        let start = call.now
        call.run(for: .seconds(12))
        let toBob = try #require(linkStats(ann, for: bob, after: start + .seconds(8)).last)
        let toCat = try #require(linkStats(ann, for: cat, after: start + .seconds(8)).last)
        let encoder = try #require(ann.videoBitrates.last?.kbps)
        print("weak link: to bob \(toBob), to cat \(toCat), encoder \(encoder) kbit/s")
        // The estimate swings around the capacity (over-use, back off, grow); what is sent stays within it.
        #expect(toCat.estimateKbps <= 345 && toCat.sentKbps <= 310, "cat's link stays at its cap: \(toCat)")
        #expect(toBob.estimateKbps >= 600, "bob's link is not held down: \(toBob.estimateKbps)")
        #expect(encoder >= 540, "the encoder follows the best link, capped at 600: \(encoder)")
        #expect(toBob.videoLayers == 3)
        // Less than bob: fewer layers of the full encoding, or the small one (a driver makes it).
        #expect(toCat.videoLayers >= 1 && (toCat.videoLayers < 3 || toCat.videoEncoding == .small), "cat gets less: \(toCat)")
        #expect(toCat.queueDelay < .milliseconds(150))
        let paused = ann.events.contains { if case .videoPaused = $0.event { true } else { false } }
        #expect(!paused)
        #expect(cat.videoFrames[ann.id, default: 0] > 50 && bob.videoFrames[ann.id, default: 0] > cat.videoFrames[ann.id, default: 0])
    }

    /// ann's links share her uplink from the start, before any queue shows it (one encoding
    /// serves them, so a link whose estimate drifts under the others' would get fewer layers and
    /// drift further). cat's downlink carries 300 kbit/s: his link waits alone, so it leaves the
    /// group, which his rate would hold down, and keeps to its own estimate.
    @Test(arguments: [35, 36, 37] as [UInt64]) func aLinkThatQueuesAloneLeavesTheUplinksShare(seed: UInt64) throws {
        let (call, people) = try mesh(["ann", "bob", "cat", "dan"], seed: seed) { _, configuration in configuration.smallVideo = true }
        let ann = people[0], bob = people[1], cat = people[2], dan = people[3]
        call.run(for: .seconds(2))
        let before = [bob, cat, dan].map { linkStats(ann, for: $0).last?.sharedKbps }
        #expect(before.allSatisfy { $0 != nil && $0 == before[0] }, "shared before any queue: \(before)")
        cap(call, from: ann, to: cat, bitsPerSecond: 300_000)
        let start = call.now
        call.run(for: .seconds(12))
        let toCat = linkStats(ann, for: cat, after: start + .seconds(6))
        let toBob = linkStats(ann, for: bob, after: start + .seconds(6)), toDan = linkStats(ann, for: dan, after: start + .seconds(6))
        print("cat's link apart: to cat \(toCat.map { ($0.sentKbps, $0.sharedKbps) }), to bob \(toBob.map { ($0.sentKbps, $0.sharedKbps) })")
        // Its own estimate saw-tooths about the cap: within it on average, no second far over it.
        let catSent = toCat.map(\.sentKbps)
        #expect(toCat.count >= 5 && toCat.allSatisfy { $0.sharedKbps == nil }, "\(toCat)")
        #expect(catSent.reduce(0, +) / Double(catSent.count) <= 310 && catSent.allSatisfy { $0 <= 345 }, "\(catSent)")
        for (bobs, dans) in zip(toBob, toDan) {
            #expect(bobs.sharedKbps != nil && bobs.sharedKbps == dans.sharedKbps && bobs.videoLayers == 3, "\(bobs) \(dans)")
        }
    }

    /// ann's uplink carries 1 Mbit/s for her three links together (a home uplink): each link's
    /// controller sees the same queue, and they should end up sharing it about evenly, every link
    /// with video, rather than one starved (the end-to-end run had 253/229/166 kbit/s and a 6.5 s freeze).
    @Test(arguments: [34, 35, 36] as [UInt64]) func linksThroughOneCappedUplinkShareItEvenly(seed: UInt64) throws {
        let (call, people) = try mesh(["ann", "bob", "cat", "dan"], seed: seed)
        let ann = people[0], others = Array(people.dropFirst())
        Self.shareUplink(call, of: people, bitsPerSecond: 1_000_000)
        let start = call.now
        call.run(for: .seconds(20))
        let last = others.map { peer in linkStats(ann, for: peer, after: start + .seconds(10)) }
        let sent = last.map { figures in figures.map(\.sentKbps).reduce(0, +) / Double(max(1, figures.count)) }
        let estimates = last.map { figures in figures.map(\.estimateKbps).reduce(0, +) / Double(max(1, figures.count)) }
        let queues = last.flatMap { $0.map(\.queueDelay.milliseconds) }
        let sortedQueues = queues.sorted()
        print("shared 1 Mbit/s uplink, from 10 s: sent \(sent), estimates \(estimates) kbit/s, queue delay \(sortedQueues.map { Int($0) }) ms")
        #expect(sent.reduce(0, +) <= 1_050, "together within the uplink: \(sent)")
        #expect(sent.min()! >= 0.7 * sent.max()!, "an even share: \(sent)")
        let reportedShared = last.map { figures in figures.filter { $0.sharedKbps != nil }.count }
        #expect(reportedShared.allSatisfy { $0 > 0 }, "link-stats say the links share the uplink: \(reportedShared) of \(last.map(\.count))")
        // In one report, every grouped link has the same share (the mean of their estimates at the
        // last rate update, which an over-use may have cut since: not compared with them here).
        let reports = ann.events.filter { $0.at >= start + .seconds(10) }.compactMap { entry -> [CallEvent.LinkStatistics]? in
            if case .linkStats(let links) = entry.event { links } else { nil }
        }
        for report in reports {
            let grouped = report.filter { $0.sharedKbps != nil }
            guard grouped.count > 1, let share = grouped.first?.sharedKbps else { continue }
            #expect(grouped.allSatisfy { $0.sharedKbps == share } && share > 0, "\(grouped)")
        }
        #expect(sortedQueues[sortedQueues.count / 2] < 100, "the uplink's queue stays short: \(sortedQueues)")
        let paused = ann.events.filter { $0.at >= start + .seconds(10) }.contains { if case .videoPaused = $0.event { true } else { false } }
        #expect(!paused, "no link paused once settled")
        for peer in others { #expect(peer.videoFrames[ann.id, default: 0] > 150, "\(peer.card.name) got \(peer.videoFrames[ann.id, default: 0]) frames") }
    }

    /// ann's 1 Mbit/s uplink from the first packet: three links start at 300 kbit/s each and grow,
    /// and the first key frames go to all three at once, so the queue stands at 130-370 ms by the
    /// first over-use. Left to the detector (one cut to 0.85 per over-use, none while the queue
    /// stands still) it stood over 100 ms until 8.5 s (156-247 ms at 4-5 s); with the standing-
    /// queue guard at any feedback spacing (cut again while it stands) it is gone by 4 s (median
    /// ~40 ms after, none over 110).
    @Test(arguments: [41, 42, 43] as [UInt64]) func aQueueBuiltAtTheStartOfAMeshDrainsWithinSeconds(seed: UInt64) throws {
        var start = Instant.zero
        let (call, people) = try mesh(["ann", "bob", "cat", "dan"], seed: seed) { _, configuration in
            configuration.statsInterval = .milliseconds(500)
        } beforeJoining: { call, people in
            Self.shareUplink(call, of: people, bitsPerSecond: 1_000_000)
            start = call.now
        }
        let ann = people[0], others = Array(people.dropFirst())
        call.run(for: (start + .seconds(12)).since(call.now))
        for peer in others {
            let early = linkStats(ann, for: peer).filter { $0.queueDelay >= .milliseconds(100) }
            let settled = linkStats(ann, for: peer, after: start + .seconds(4))
            let queues = settled.map { Int($0.queueDelay.milliseconds) }
            print("start through a shared 1 Mbit/s uplink, ann -> \(peer.card.name) from 4 s: queue \(queues) ms, sent \(settled.map { Int($0.sentKbps) })")
            #expect(!early.isEmpty, "the start does queue (or this tests nothing)")
            #expect(settled.count >= 15 && queues.allSatisfy { $0 < 150 }, "queue delays from 4 s: \(queues)")
            #expect(queues.sorted()[queues.count / 2] < 60, "queue delays from 4 s: \(queues)")
            #expect(settled.map(\.sentKbps).reduce(0, +) / Double(max(1, settled.count)) >= 250, "the link is used")
            #expect(peer.receivedAudioFrames[ann.id, default: 0] >= 550, "audio all along: \(peer.receivedAudioFrames[ann.id, default: 0])")
        }
    }

    /// Capacity falls from 2 Mbit/s to 500 kbit/s and comes back: the estimate follows it down
    /// within two seconds and, once the path is clear again, finds the room it has again quickly
    /// (probing) rather than at 8 % a second.
    @Test func aLinkWhoseCapacityComesBackRecoversQuickly() throws {
        let (call, people) = try mesh(["ann", "bob"], seed: 35, videoKbps: 2_000)
        let ann = people[0], bob = people[1]
        cap(call, from: ann, to: bob, bitsPerSecond: 2_000_000)
        call.run(for: .seconds(10))
        let before = try #require(linkStats(ann, for: bob).last?.estimateKbps)
        cap(call, from: ann, to: bob, bitsPerSecond: 500_000)
        let dropped = call.now
        call.run(for: .seconds(10))
        let down = linkStats(ann, for: bob, after: dropped)
        let adaptedDown = try #require(down.firstIndex { $0.estimateKbps <= 550 }.map { Double($0 + 1) })
        cap(call, from: ann, to: bob, bitsPerSecond: 2_000_000)
        let restored = call.now
        call.run(for: .seconds(12))
        let up = linkStats(ann, for: bob, after: restored)
        print("step: before \(before) kbit/s, down \(down.map { Int($0.estimateKbps) }) sent \(down.map { Int($0.sentKbps) }) q \(down.map { Int($0.queueDelay.milliseconds) }), up \(up.map { Int($0.estimateKbps) })")
        #expect(before >= 1_200, "the link used its 2 Mbit/s first: \(before)")
        #expect(adaptedDown <= 2, "down to the cap within 2 s: \(down.map(\.estimateKbps))")
        let recovered = up.firstIndex { $0.estimateKbps >= 1_000 }.map { Double($0 + 1) }
        #expect(recovered.map { $0 <= 4 } == true, "back over 1 Mbit/s within 4 s: \(up.map(\.estimateKbps))")
        #expect(bob.receivedAudioFrames[ann.id, default: 0] > 1_400, "audio all along")
    }

    /// The same step on a link the encoder does not fill (600 kbit/s of video on a 2 Mbit/s path,
    /// as `bench/congestion.py step` runs it), with a low phase long enough for probes to fail
    /// their trials in it: once the capacity is back, the estimate is back over what the link
    /// carried before the fall within the 5 s, probed for rather than grown into at 8 % a
    /// second (from ~450 kbit/s that takes 5-6 s; it did after 20 s low).
    @Test(arguments: [7, 20, 40])
    func anAppLimitedLinkFindsItsRateAgainAfterALowPhase(seconds: Int) throws {
        let (call, people) = try mesh(["ann", "bob"], seed: 41, videoKbps: 600)
        let ann = people[0], bob = people[1]
        cap(call, from: ann, to: bob, bitsPerSecond: 2_000_000)
        call.run(for: .seconds(10))
        let carried = linkStats(ann, for: bob).suffix(4).map(\.sentKbps).reduce(0, +) / 4
        cap(call, from: ann, to: bob, bitsPerSecond: 500_000)
        let dropped = call.now
        call.run(for: .seconds(seconds))
        let down = linkStats(ann, for: bob, after: dropped)
        cap(call, from: ann, to: bob, bitsPerSecond: 2_000_000)
        let restored = call.now
        call.run(for: .seconds(10))
        let up = linkStats(ann, for: bob, after: restored)
        print("app-limited step, \(seconds) s low: carried \(Int(carried)) kbit/s, down \(down.map { Int($0.estimateKbps) }) "
            + "q \(down.map { Int($0.queueDelay.milliseconds) }), up \(up.map { Int($0.estimateKbps) }) sent \(up.map { Int($0.sentKbps) })")
        #expect(carried >= 550, "the encoder's 600 kbit/s and audio went through first: \(carried)")
        #expect(down.suffix(seconds / 2).allSatisfy { $0.estimateKbps <= 550 }, "the estimate followed the cap down")
        let recovered = up.firstIndex { $0.estimateKbps >= carried }.map { $0 + 1 }
        #expect(recovered.map { $0 <= 4 } == true, "back over \(Int(carried)) kbit/s within 4 s: \(up.map(\.estimateKbps))")
        // From 2 s after the fall (its own queue drains by then), and at least five figures: with
        // 7 s low, from 5 s on left two, and the median of two is the larger.
        let settledQueues = down.dropFirst(min(5, max(2, down.count - 5))).map(\.queueDelay.milliseconds)
        #expect(settledQueues.sorted()[settledQueues.count / 2] < 60, "probes in the low phase keep its queue short: \(settledQueues)")
    }

    /// ann -> bob through a 400 kbit/s token bucket of `burst` bytes (a queue of 250 ms more), 5 ms
    /// away, for `seconds`: bob's link figures from 10 s on, printed.
    private func throughABucket(burst: Int, seed: UInt64, seconds: Int) throws -> [CallEvent.LinkStatistics] {
        let (call, people) = try mesh(["ann", "bob"], seed: seed)
        let ann = people[0], bob = people[1]
        call.network.setConditions(LinkConditions(delay: .milliseconds(5), bandwidth: 400_000, queueLimit: 10_000 + burst, burst: burst),
                                   from: ann.id, to: bob.id)
        let start = call.now
        call.run(for: .seconds(seconds))
        let settled = linkStats(ann, for: bob, after: start + .seconds(10))
        print("400 kbit/s with a \(burst)-byte burst, from 10 s: estimate \(settled.map { Int($0.estimateKbps) }) "
            + "sent \(settled.map { Int($0.sentKbps) }) loss \(settled.map { Int($0.lossPercent) })")
        return settled
    }

    /// A shaper's token bucket (`tc ... tbf rate 400kbit burst 8kb latency 200ms`, as the end-to-end
    /// test sets) lets a burst through at once, so the first packets over the rate see no queue and
    /// the delay-based detector hears of over-use late: the estimate climbs about 15 % past the rate
    /// before it falls. Within the end-to-end test's bound (480 kbit/s over 2 s; here each second),
    /// and with no loss to speak of.
    @Test func aShapersBurstKeepsTheLinkNearItsRate() throws {
        let settled = try throughABucket(burst: 8_192, seed: 37, seconds: 30)
        #expect(settled.count >= 18)
        let sent = settled.map(\.sentKbps)
        #expect(sent.allSatisfy { $0 <= 480 }, "sent within 1.2 times the rate: \(sent)")
        #expect(sent.reduce(0, +) / Double(max(1, sent.count)) <= 420, "on average at the rate: \(sent)")
        #expect(sent.reduce(0, +) / Double(max(1, sent.count)) >= 300, "the link is used: \(sent)")
        #expect(settled.allSatisfy { $0.lossPercent < 5 }, "no loss to speak of: \(settled.map(\.lossPercent))")
    }

    /// A deeper bucket (30 kB: a burst of 600 ms at the rate): a probe cluster after a fall fits in
    /// it and arrives as fast as it left, room the path does not have (one estimate of 644 kbit/s
    /// once settled, before probes were put on trial). Probes on trial (CallEngine+Probing) keep
    /// the estimate near the rate.
    @Test func aDeepBucketDoesNotFoolTheProbes() throws {
        let settled = try throughABucket(burst: 30_000, seed: 39, seconds: 40)
        #expect(settled.count >= 28)
        let over = settled.filter { $0.estimateKbps > 480 }
        #expect(over.isEmpty, "estimates over 1.2 times the rate: \(over.map(\.estimateKbps))")
    }

    /// Capacity falls for good, to a shaper's 400 kbit/s token bucket of 20 kB: probes towards
    /// what the link carried before go on for a minute (CallEngine+Probing), and a whole cluster
    /// fits in the bucket and reads its aim. The cost, bounded here: in 55 s three estimates read
    /// ~690 kbit/s, each followed by a queue of up to ~200 ms before the trial failed; the rest of
    /// the time the link stays near the rate.
    @Test func probesAfterAFallIntoADeepBucketKeepTheLinkNearItsRate() throws {
        let (call, people) = try mesh(["ann", "bob"], seed: 43)
        let ann = people[0], bob = people[1]
        cap(call, from: ann, to: bob, bitsPerSecond: 2_000_000)
        call.run(for: .seconds(10))
        call.network.setConditions(LinkConditions(delay: .milliseconds(20), bandwidth: 400_000, queueLimit: 10_000 + 20_000, burst: 20_000),
                                   from: ann.id, to: bob.id)
        let dropped = call.now
        call.run(for: .seconds(60))
        let settled = linkStats(ann, for: bob, after: dropped + .seconds(5))
        let sent = settled.map(\.sentKbps), estimates = settled.map(\.estimateKbps)
        print("2 Mbit/s, then a 400 kbit/s bucket of 20 kB, from 5 s: estimate \(estimates.map { Int($0) }) sent \(sent.map { Int($0) }) "
            + "queue \(settled.map { Int($0.queueDelay.milliseconds) })")
        #expect(settled.count >= 50)
        #expect(sent.reduce(0, +) / Double(max(1, sent.count)) <= 420, "on average at the rate: \(sent)")
        #expect(estimates.filter { $0 > 480 }.count <= settled.count / 10, "estimates over 1.2 times the rate: \(estimates)")
        let queues = settled.map(\.queueDelay.milliseconds).sorted()
        #expect(queues[queues.count / 2] < 60, "median queue: \(queues)")
    }

    /// On a path that loses packets at random, the resends NACKs ask for come out of the video's
    /// budget, so that media and resends together stay within the estimate (they came on top of
    /// it, up to half as much again). Not exactly within: the encoder is asked again only when its
    /// target moved by more than `OutgoingVideo.hysteresis` (10 %), and follows a new one within a
    /// second. Over six seeds, sent against estimated came to 1.01-1.05 over the whole and more
    /// than 5 % over in 4-7 reports of 15; with resends on top, 1.08-1.16 and 10-14 of 15.
    @Test(arguments: [38, 138, 238] as [UInt64]) func resendsComeOutOfTheVideoBudget(seed: UInt64) throws {
        let (call, people) = try mesh(["ann", "bob"], seed: seed, videoKbps: 2_000)
        let ann = people[0], bob = people[1]
        call.network.setConditions(LinkConditions(delay: .milliseconds(20), loss: 0.08, bandwidth: 800_000, queueLimit: 50_000),
                                   from: ann.id, to: bob.id)
        let start = call.now
        call.run(for: .seconds(20))
        let settled = linkStats(ann, for: bob, after: start + .seconds(5))
        let figures = "estimate \(settled.map { Int($0.estimateKbps) }) sent \(settled.map { Int($0.sentKbps) }) "
            + "loss \(settled.map { Int($0.lossPercent) }) queue \(settled.map { Int($0.queueDelay.milliseconds) })"
        #expect(settled.count >= 12)
        // Each report's estimate is of its end: judged over the whole, and report by report.
        let sent = settled.map(\.sentKbps).reduce(0, +), estimated = settled.map(\.estimateKbps).reduce(0, +)
        #expect(sent <= 1.06 * estimated, "sent \(Int(sent)) against estimates adding up to \(Int(estimated)): \(figures)")
        let over = settled.filter { $0.sentKbps > $0.estimateKbps * 1.05 }
        #expect(over.count <= settled.count / 2, "sent over the estimate: \(figures)")
    }

    @Test func aLinkUnderFiftyKilobitsPausesVideoAndResumesWhenTheCapLifts() throws {
        let (call, people) = try mesh(["ann", "bob"], seed: 33)
        let ann = people[0], bob = people[1]
        cap(call, from: ann, to: bob, bitsPerSecond: 40_000)
        func pauses() -> [CallEvent] {
            ann.events.map(\.event).filter { if case .videoPaused = $0 { true } else if case .videoResumed = $0 { true } else { false } }
        }
        #expect(call.run(for: .seconds(15)) { !pauses().isEmpty })
        #expect(pauses() == [.videoPaused(bob.card, reason: .bandwidth)])
        let pausedAt = call.now
        let audioBefore = bob.receivedAudioFrames[ann.id, default: 0], videoBefore = bob.videoFrames[ann.id, default: 0]
        call.run(for: .seconds(5))
        #expect(ann.engine.videoLayers(bob.id) == 0)
        #expect(bob.videoFrames[ann.id, default: 0] <= videoBefore + 2, "no video while paused (frames already queued may land)")
        #expect(bob.receivedAudioFrames[ann.id, default: 0] - audioBefore > 200, "audio goes on: 5 s of 20 ms frames")
        cap(call, from: ann, to: bob, bitsPerSecond: nil)
        #expect(call.run(for: .seconds(20)) { pauses().count == 2 })
        #expect(pauses().last == .videoResumed(bob.card))
        let resumedAt = try #require(ann.events.last { if case .videoResumed = $0.event { true } else { false } }?.at)
        print("paused \(pausedAt.since(Instant.zero)), resumed \(resumedAt.since(pausedAt)) after the pause")
        let videoAtResume = bob.videoFrames[ann.id, default: 0]
        call.run(for: .seconds(3))
        #expect(bob.videoFrames[ann.id, default: 0] > videoAtResume + 20, "video flows again, from a key frame")
    }

    @Test func transportFeedbackFlowsBothWays() throws {
        let (call, people) = try mesh(["ann", "bob"], seed: 34)
        let ann = people[0], bob = people[1]
        call.run(for: .seconds(3))
        for (who, peer) in [(ann, bob), (bob, ann)] {
            let statistics = try #require(who.engine.congestionStatistics(peer.id))
            #expect(statistics.delayBased != nil, "\(who.name) has a delay-based estimate from \(peer.name)'s feedback")
            #expect(statistics.acknowledged != nil)
            #expect(statistics.roundTrip.map { $0 >= .milliseconds(35) && $0 < .milliseconds(100) } == true)
            #expect(statistics.target > 300_000, "it grew from the start: \(statistics.target)")
        }
    }

    /// libwebrtc's rule, from 100 ms: a report within 5 % of what the link brings. Audio alone
    /// (about 45 kbit/s with headers) is reported four times a second; a link that brings video,
    /// ten times.
    @Test func transportFeedbackComesAsOftenAsTheIncomingRateWarrants() throws {
        let (call, people) = try mesh(["ann", "bob"], seed: 36) { name, configuration in
            if name == "bob" { configuration.sendsVideo = false }
        }
        let ann = people[0], bob = people[1]
        bob.sendsVideo = false
        call.run(for: .seconds(2))
        let before = (video: bob.transportFeedbackSent[ann.id, default: 0], audio: ann.transportFeedbackSent[bob.id, default: 0])
        call.run(for: .seconds(10))
        let videoReports = bob.transportFeedbackSent[ann.id, default: 0] - before.video
        let audioReports = ann.transportFeedbackSent[bob.id, default: 0] - before.audio
        #expect((95...105).contains(videoReports), "bob reports ann's audio and video every 100 ms: \(videoReports) in 10 s")
        #expect((36...48).contains(audioReports), "ann reports bob's audio every ~240 ms: \(audioReports) in 10 s")
    }

    @Test func aPeerWithoutTransportFeedbackGetsALossBasedEstimate() throws {
        let (call, people) = try mesh(["ann", "bob"], seed: 35) { name, configuration in
            if name == "bob" { configuration.congestionControl = false }
        }
        let ann = people[0], bob = people[1]
        call.run(for: .seconds(10))
        for (who, peer) in [(ann, bob), (bob, ann)] {
            let statistics = try #require(who.engine.congestionStatistics(peer.id))
            #expect(statistics.delayBased == nil && statistics.acknowledged == nil, "no transport feedback either way")
            #expect(statistics.lossFraction == 0, "receiver reports came, with no loss")
            #expect(statistics.target > 300_000, "the loss bound ramps from the start without loss: \(statistics.target)")
        }
        #expect(bob.videoFrames[ann.id, default: 0] > 100 && ann.videoFrames[bob.id, default: 0] > 100)
        #expect(bob.receivedAudioFrames[ann.id, default: 0] > 450)
    }
}

extension CallEngineCongestionTests {
    /// A receiver that reads nothing for 350 ms of every 500 and then all it missed (a CPU that
    /// another load starves, as the camera test's emulated machine's: Tests/FLAKES.md): no queue
    /// stands on the path, so a link paused on a weak path still probes and resumes once the
    /// path is good again.
    @Test func aPausedLinkResumesThroughAReceiverThatReadsLate() throws {
        let (call, people) = try mesh(["ann", "bob"], seed: 35)
        let ann = people[0], bob = people[1]
        cap(call, from: ann, to: bob, bitsPerSecond: 40_000)
        func pauses() -> [CallEvent] {
            ann.events.map(\.event).filter { if case .videoPaused = $0 { true } else if case .videoResumed = $0 { true } else { false } }
        }
        #expect(call.run(for: .seconds(15)) { !pauses().isEmpty })
        let pausedAt = call.now
        call.network.setConditions(LinkConditions(delay: .milliseconds(20), stalls: .init(every: .milliseconds(500), length: .milliseconds(350))),
                                   from: ann.id, to: bob.id)
        let resumed = call.run(for: .seconds(60)) { pauses().count == 2 }
        let stats = linkStats(ann, for: bob, after: pausedAt)
        #expect(resumed, "estimate \(stats.map { Int($0.estimateKbps) }) queue \(stats.map { Int($0.queueDelay.milliseconds) })")
    }
}

extension CallEngineCongestionTests {
    /// ann, bob, cat and dan at 240p (a small encoding, 160x120, beside the full one); bob, cat
    /// and dan reach ann through one 300 kbit/s queue, the end-to-end test's `tc tbf rate 300kbit
    /// burst 8kb latency 200ms`: ann's downlink. `paths`: each sender's path to her, with 3 ms of
    /// jitter (a loaded machine's scheduling, there).
    func sharedDownlinkMesh(seed: UInt64) throws -> (call: SimulatedCall, ann: SimulatedCall.Participant, senders: [SimulatedCall.Participant], paths: LinkConditions) {
        let (call, people) = try mesh(["ann", "bob", "cat", "dan"], seed: seed) { _, configuration in
            configuration.smallVideo = true
            configuration.fullVideoFloorKbps = VideoEncoding.fullFloorKbps(width: 320, height: 240)
        }
        let ann = people[0], senders = Array(people.dropFirst())
        call.network.setDownlink(.init(bitsPerSecond: 300_000, limit: .bytes(300_000 / 8 / 5 + 8_192), burst: 8_192), for: ann.id)
        var paths = LinkConditions(delay: .milliseconds(20))
        paths.jitter = .milliseconds(3)
        for sender in senders { call.network.setConditions(paths, from: sender.id, to: ann.id) }
        return (call, ann, senders, paths)
    }

    /// Each sender's last link-stats for ann: estimate/sent kbit/s, queue delay, layers.
    func views(of senders: [SimulatedCall.Participant], to ann: SimulatedCall.Participant, after: Instant) -> [String] {
        senders.map { sender in
            "\(sender.name): " + linkStats(sender, for: ann, after: after)
                .map { "\(Int($0.estimateKbps))/\(Int($0.sentKbps)) q\(Int($0.queueDelay.milliseconds)) l\($0.videoLayers)" }.joined(separator: " ")
        }
    }

    /// The video frames ann gets from each of `senders` while the call runs `duration` more.
    func frames(at ann: SimulatedCall.Participant, from senders: [SimulatedCall.Participant], in call: SimulatedCall,
                over duration: Duration) -> [Int] {
        let before = senders.map { ann.videoFrames[$0.id, default: 0] }
        call.run(for: duration)
        return zip(senders, before).map { ann.videoFrames[$0.id, default: 0] - $1 }
    }

    /// Each sender's video must keep coming through the shared downlink once settled.
    @Test(arguments: [1, 5, 8, 12] as [UInt64]) func threeSendersThroughOneDownlinkEachGetVideoThrough(seed: UInt64) throws {
        let (call, ann, senders, _) = try sharedDownlinkMesh(seed: seed)
        call.run(for: .seconds(12))
        let through = frames(at: ann, from: senders, in: call, over: .seconds(15))
        #expect(through.allSatisfy { $0 >= 15 },
                "frames ann got in 15 s: \(through); estimate/sent, queue, layers: \(views(of: senders, to: ann, after: call.now - .seconds(6)))")
    }

    /// The end-to-end flake's shape (Tests/FLAKES.md): bob's video to ann paused (his own path to
    /// her was narrow), then his path is only the downlink cat and dan keep a queue in. His link
    /// must come back.
    @Test(arguments: [1, 2, 3, 4] as [UInt64]) func aPausedSenderResumesThroughADownlinkOthersKeepQueued(seed: UInt64) throws {
        let (call, ann, senders, paths) = try sharedDownlinkMesh(seed: seed)
        let bob = senders[0]
        var narrow = paths
        narrow.bandwidth = 40_000
        narrow.queueLimit = 3_000
        call.network.setConditions(narrow, from: bob.id, to: ann.id)
        call.run(for: .seconds(12))
        let paused = bob.events.contains { if case .videoPaused(let peer, _) = $0.event { peer.id == ann.id } else { false } }
        #expect(paused, "bob's video to ann paused behind 40 kbit/s")
        call.network.setConditions(paths, from: bob.id, to: ann.id)
        let bobs = frames(at: ann, from: [bob], in: call, over: .seconds(20))[0]
        #expect(bobs >= 60, "bob's frames at ann in the 20 s after his path widened: \(bobs); \(views(of: senders, to: ann, after: call.now - .seconds(6)))")
    }
}

extension CallEngineCongestionTests {
    /// A queue that stands in ann's downlink, another flow's (a download beside the call): every
    /// packet into her waits 55 or 80 ms more from 12 s on, however little is sent. The links
    /// back off and some pause; a paused link then sends only its audio, so a queue that stands
    /// through that is not its own, and it takes the queue as the path's and comes back, within
    /// seconds. (Before, it waited for the meter's baseline to age out: 50-60 s without video.)
    @Test(arguments: [1, 2] as [UInt64], [55, 80] as [Int]) func videoComesBackOverAQueueAnotherFlowKeeps(seed: UInt64, milliseconds: Int) throws {
        let (call, ann, senders, _) = try sharedDownlinkMesh(seed: seed)
        call.run(for: .seconds(12))
        var downlink = DropTailQueue(bitsPerSecond: 300_000, limit: .bytes(300_000 / 8 / 5 + 8_192), burst: 8_192)
        downlink.standingWait = .milliseconds(milliseconds)
        call.network.setDownlink(downlink, for: ann.id)
        call.run(for: .seconds(10))
        let got = frames(at: ann, from: senders, in: call, over: .seconds(20))
        #expect(got.allSatisfy { $0 >= 100 },
                "frames ann got from bob, cat, dan 10-30 s after the queue came: \(got); \(views(of: senders, to: ann, after: call.now - .seconds(6)))")
    }
}
