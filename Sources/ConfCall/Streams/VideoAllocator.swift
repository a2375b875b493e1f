import ConfCore
import ConfWire

/// How our video is shared out among the links, from each link's video budget (its estimate less
/// its audio and resends): the encoders' targets, which links move to the small encoding, and
/// each link's layers and pause. Pure: the engine hands it the links that get our video, and
/// carries out what it says (key frame requests, notes and events, queued video dropped) and
/// asks the encoders.
///
/// One encoding, many links: the full encoding follows the best link, where the links that share
/// our uplink count as one at the least of their budgets (they send at one rate, so their budgets
/// differ only by their resends, and one link's resends take that uplink from all of them; counted
/// apart, the link without resends would set the encoder, and each link with a few would lose its
/// top layer, half its frame rate, and go without a frame whenever libvpx skipped base-layer
/// pictures to pay for a large one). Each link then takes the temporal layers its budget carries
/// (`VideoForwarding`, `LinkLayerPolicy`).
///
/// Where the driver makes a small encoding, a link that cannot carry half the full encoding's
/// frame rate, or the full picture's floor once its estimate has settled, moves to it
/// (`LinkEncodingChoice`), and pauses only when it cannot carry the small one's base layer. Not
/// before its estimate has settled: in a call's first seconds a weak peer's link still counts in
/// the uplink's group, whose least would put every link under the floor, and the way back to full
/// is a key frame large enough to hold the healthy links for half a second.
struct VideoAllocator: Sendable {
    /// One link that gets our video, as the allocator sees it.
    struct Recipient: Sendable {
        let id: ParticipantID
        /// What its video may take now, kbit/s.
        let budgetKbps: Int
        /// Whether it sends at our shared uplink's rate (`SharedBottleneck`).
        let sharesUplink: Bool
        /// Up long enough for its estimate to have settled.
        let settled: Bool
        var forwarding: VideoForwarding
    }

    /// A link's move to the other encoding, for the engine to carry out.
    struct Move: Equatable, Sendable {
        let id: ParticipantID
        let encoding: VideoEncoding
        let how: VideoForwarding.Move
    }

    /// `--video-bitrate`: the most the full encoding is asked for, kbit/s.
    var videoBitrateKbps: Int
    /// The least the full encoding is asked for (VP8 makes pictures not worth sending below it).
    var minimumVideoKbps: Int
    /// The least the small encoding is asked for (a quarter of the pixels).
    var minimumSmallVideoKbps: Int
    /// What a link's budget must reach for the full encoding once settled (0: no floor).
    var fullVideoFloorKbps: Int
    /// Whether the driver makes a small encoding.
    var smallVideo: Bool

    /// The most one encoding should make for `links`: the best of their budgets, the links that
    /// share our uplink counting as one at the least of theirs (a paused one aside); nil for none.
    static func encodingBudgetKbps(_ links: [Recipient]) -> Int? {
        let grouped = links.filter { $0.sharesUplink && !$0.forwarding.paused }.map(\.budgetKbps)
        let apart = links.filter { !$0.sharesUplink || $0.forwarding.paused }.map(\.budgetKbps)
        return (apart + [grouped.min()].compactMap { $0 }).max()
    }

    /// The full encoder's target: the best budget among the links, at least `minimumVideoKbps`,
    /// at most `videoBitrateKbps`.
    func encoderTargetKbps(_ links: [Recipient]) -> Int {
        min(videoBitrateKbps, max(minimumVideoKbps, Self.encodingBudgetKbps(links) ?? videoBitrateKbps))
    }

    /// The small encoding's target while some link is on it (or still sent it): the best budget
    /// among those links, within `minimumSmallVideoKbps` and half the full encoding's target (a
    /// quarter of the pixels needs no more) or its floor, whichever is more (links under the floor
    /// take all their budget in the small encoding); nil while no link is on it.
    func smallTargetKbps(_ links: [Recipient], fullKbps: Int) -> Int? {
        guard let best = Self.encodingBudgetKbps(links.filter { $0.forwarding.mayGet(.small) }) else { return nil }
        return max(minimumSmallVideoKbps, min(max(fullKbps / 2, fullVideoFloorKbps), best))
    }

    /// Which links move to the other encoding now, with the full encoder at `encoderKbps` in
    /// `layers` layers. Under the floor but over the half-rate layers, the full picture still
    /// fits meanwhile, so a link moving to small keeps it until the small one's key frame; under
    /// those, it would overrun the link until the small one came.
    func chooseEncodings(_ links: inout [Recipient], encoderKbps: Int, layers: Int, now: Instant) -> [Move] {
        guard smallVideo else { return [] }
        let halfFrameRate = LinkLayerPolicy.halfFrameRateKbps(encoderKbps: encoderKbps, layers: layers)
        var moves: [Move] = []
        for index in links.indices where !links[index].forwarding.paused {
            let link = links[index]
            let fullNeeds = max(halfFrameRate, link.settled ? fullVideoFloorKbps : 0)
            guard let encoding = links[index].forwarding.chooseEncoding(budgetKbps: link.budgetKbps, fullNeedsKbps: fullNeeds, now: now)
            else { continue }
            let keepingTheOld = encoding == .full || link.budgetKbps >= halfFrameRate
            moves.append(Move(id: link.id, encoding: encoding, how: links[index].forwarding.move(to: encoding, keepingTheOld: keepingTheOld)))
        }
        return moves
    }

    /// Each link's layers and pause from its budget against the encoding it is sent (`smallKbps`
    /// for the small one, the full one's target while the small one has none), `layers(encoding)`
    /// made; the links whose video paused or resumed.
    func judgeLayers(_ links: inout [Recipient], encoderKbps: Int, smallKbps: Int?, layers: (VideoEncoding) -> Int,
                     now: Instant) -> [(id: ParticipantID, change: LinkLayerPolicy.Change)] {
        var changes: [(id: ParticipantID, change: LinkLayerPolicy.Change)] = []
        for index in links.indices {
            let encoding = links[index].forwarding.encoding
            let kbps = encoding == .small ? smallKbps ?? encoderKbps : encoderKbps
            if let change = links[index].forwarding.judge(budgetKbps: links[index].budgetKbps, encoderKbps: kbps, layers: layers(encoding), now: now) {
                changes.append((links[index].id, change))
            }
        }
        return changes
    }
}
