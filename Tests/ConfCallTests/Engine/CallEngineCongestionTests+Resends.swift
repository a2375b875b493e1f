import ConfCall
import ConfCore
import Testing

extension CallEngineCongestionTests {
    /// ann's three links share her 1 Mbit/s uplink, and the path to bob also loses 3 % of what
    /// it carries, so bob asks for resends and cat and dan do not. The group sends at one rate:
    /// bob's resends lower the encoder's target for all three rather than costing bob's link its
    /// top layer (half its frame rate) while cat's and dan's keep theirs.
    @Test(arguments: [51, 52] as [UInt64]) func resendsOnOneLinkOfASharedUplinkCostItNoLayer(seed: UInt64) throws {
        var start = Instant.zero
        let (call, people) = try mesh(["ann", "bob", "cat", "dan"], seed: seed) { _, _ in
        } beforeJoining: { call, people in
            Self.shareUplink(call, of: people, bitsPerSecond: 1_000_000)
            var lossy = LinkConditions(delay: .milliseconds(20))
            lossy.loss = 0.03
            call.network.setConditions(lossy, from: people[0].id, to: people[1].id)
            start = call.now
        }
        let ann = people[0], bob = people[1], cat = people[2], dan = people[3]
        call.run(for: (start + .seconds(20)).since(call.now))
        let reports = ann.events.filter { $0.at >= start + .seconds(8) }.compactMap { entry -> [CallEvent.LinkStatistics]? in
            if case .linkStats(let links) = entry.event { links } else { nil }
        }
        let layers = reports.map { report in [bob, cat, dan].map { peer in report.first { $0.peer == peer.id }?.videoLayers ?? -1 } }
        let grouped = reports.filter { report in report.filter { $0.sharedKbps != nil }.count == 3 }.count
        print("resends on one link of a shared uplink: layers (bob, cat, dan) \(layers), bob's loss \(reports.compactMap { $0.first { $0.peer == bob.id }?.lossPercent })")
        #expect(reports.count >= 10 && grouped >= reports.count - 1, "the three links share the uplink: \(grouped) of \(reports.count)")
        let bobsFewer = layers.filter { $0[0] < min($0[1], $0[2]) }.count
        #expect(bobsFewer == 0, "bob's link had fewer layers than the others in \(bobsFewer) of \(layers.count) reports: \(layers)")
        #expect(bob.videoFrames[ann.id, default: 0] > 150, "bob got \(bob.videoFrames[ann.id, default: 0]) frames")
    }
}
