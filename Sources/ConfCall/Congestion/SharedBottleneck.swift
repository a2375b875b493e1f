import ConfCore

/// Which of one participant's links go through the same queue: in a mesh nearly always the
/// participant's own uplink, which every link it sends on shares. Links that share a queue see
/// it fill at the same moments and by the same amount, so this is a simplified form of RFC 8382's
/// shared bottleneck detection: a *coincidence* is a sample in which two or more links wait at
/// least `congestedDelay` in the path's queues with delays that agree (within `agreement` ×, or
/// `agreementSlack`); a link that took part in at least half of the last `window`'s
/// coincidences, when there were at least `minimumCoincidences`, is in the group. A weak peer's
/// downlink congests one link alone and groups nothing. Pure; time is passed in.
///
/// `presumed` (our uplink): the links named to `group` share one queue until one is shown to be
/// apart. Evidence alone was not enough there: links that share the uplink evenly seldom queue,
/// so the evidence would age out of the window, each link go back to its own estimate, and the
/// estimates drift apart with nothing queued (and the lower links fall to the base layer). A
/// link is apart once,
/// in at least `minimumCoincidences` of the window's samples and in more than it took part in
/// coincidences, it was seen
/// - waiting alone: at least `aloneDelay`, no other link's delay agreeing (behind a weak peer's
///   downlink). Shorter waits do not count: on one shared uplink, a link's feedback that catches
///   its own frame's burst reads more than twice the others';
/// - or not waiting (under `clearDelay`) while others wait together (a peer on our LAN, whose
///   link does not cross the uplink the others fill). Only once the link has been measured for
///   `clearAfter`: a link that starts while the uplink's queue stands takes that queue for the
///   empty path and reads short delays until it drains (it would be apart, at its own estimate,
///   while the others fall to the small encoding).
///
/// A link shown apart stays so until it takes part in `minimumCoincidences` coincidences, more
/// than it was seen apart, or until it has not been seen apart for `apartMemory` (links that send
/// at one rate seldom queue, so the coincidences may never come).
///
/// What the group is for (after RFC 8699's flow state exchange, with equal priorities): the links
/// in it send at one rate (`CallEngine.shareBottleneck`: the least of their estimates), instead of
/// each controller taking what it can from the same queue (where the first to back off keeps
/// losing).
struct SharedBottleneck<ID: Hashable & Sendable>: Sendable {
    var window: Duration = .seconds(8)
    var minimumCoincidences = 3
    var congestedDelay: Duration = .milliseconds(15)
    var agreement = 1.6
    var agreementSlack: Duration = .milliseconds(10)
    let presumed: Bool

    /// Each coincidence: when, and the links in it.
    private var coincidences: [(at: Instant, links: Set<ID>)] = []
    /// A link's delay under this while others wait together shows that it does not cross their queue.
    var clearDelay: Duration = .milliseconds(5)
    var clearAfter: Duration = .seconds(5)
    var aloneDelay: Duration = .milliseconds(50)
    var apartMemory: Duration = .seconds(30)

    /// Each sample in which a link waited with no other link's delay agreeing, or did not wait
    /// while others waited together.
    private var seenApart: [(at: Instant, link: ID)] = []
    /// Links shown to be behind a queue of their own (only while `presumed`), and when each was last seen so.
    private(set) var apart: Set<ID> = []
    private var lastSeenApart: [ID: Instant] = [:]
    /// When each link's delay was first measured.
    private var measuredSince: [ID: Instant] = [:]

    init(presumed: Bool = false) { self.presumed = presumed }

    /// One sample of every connected link's queue delay (nil: not measured yet).
    mutating func record(_ delays: [(id: ID, queueDelay: Duration?)], now: Instant) {
        // Out of the window, or about a link that left (or is being set up again): a link that
        // comes back is judged afresh.
        let present = Set(delays.map(\.id))
        coincidences = coincidences.filter { now.since($0.at) <= window }.map { ($0.at, $0.links.intersection(present)) }
            .filter { $0.links.count >= 2 }
        seenApart.removeAll { now.since($0.at) > window || !present.contains($0.link) }
        lastSeenApart = lastSeenApart.filter { present.contains($0.key) && now.since($0.value) <= apartMemory }
        apart = apart.filter { lastSeenApart[$0] != nil }
        measuredSince = measuredSince.filter { present.contains($0.key) }
        for entry in delays where entry.queueDelay != nil && measuredSince[entry.id] == nil { measuredSince[entry.id] = now }
        let congested = delays.compactMap { entry -> (id: ID, delay: Double)? in
            guard let delay = entry.queueDelay, delay >= congestedDelay else { return nil }
            return (entry.id, delay.milliseconds)
        }
        let together = Set(agreeingSet(congested).map(\.id))
        if together.count >= 2 { coincidences.append((now, together)) }
        guard presumed else { return }
        let alone = congested.filter { $0.delay >= aloneDelay.milliseconds && !together.contains($0.id) }.map(\.id)
        let clear = together.count < 2 ? [] : delays.compactMap { entry -> ID? in
            guard let delay = entry.queueDelay, delay < clearDelay, let since = measuredSince[entry.id], now.since(since) >= clearAfter else { return nil }
            return entry.id
        }
        for id in alone + clear {
            seenApart.append((now, id))
            lastSeenApart[id] = now
        }
        for id in Set(alone + clear).union(together) {
            let apartCount = seenApart.count { $0.link == id }, sharedCount = coincidences.count { $0.links.contains(id) }
            if apartCount >= minimumCoincidences, apartCount > sharedCount { apart.insert(id) }
            if sharedCount >= minimumCoincidences, sharedCount > apartCount { apart.remove(id) }
        }
    }

    /// The largest set whose delays agree: around the median, which a lone outlier cannot move.
    private func agreeingSet(_ congested: [(id: ID, delay: Double)]) -> [(id: ID, delay: Double)] {
        guard congested.count >= 2 else { return [] }
        let sorted = congested.sorted { $0.delay < $1.delay }
        let middle = sorted[sorted.count / 2].delay
        let slack = agreementSlack.milliseconds
        let agreeing = sorted.filter { entry in
            (entry.delay <= middle * agreement || entry.delay <= middle + slack)
                && (middle <= entry.delay * agreement || middle <= entry.delay + slack)
        }
        return agreeing.count >= 2 ? agreeing : []
    }

    /// The links that share a queue now: those the recent coincidences show, and while `presumed`
    /// also those of `candidates` not shown apart. Empty when fewer than two.
    func group(now: Instant, presuming candidates: [ID] = []) -> Set<ID> {
        var members = presumed ? Set(candidates).subtracting(apart) : []
        let recent = coincidences.filter { now.since($0.at) <= window }
        if recent.count >= minimumCoincidences {
            var counts: [ID: Int] = [:]
            for coincidence in recent {
                for id in coincidence.links { counts[id, default: 0] += 1 }
            }
            members.formUnion(counts.filter { 2 * $0.value >= recent.count }.keys)
        }
        return members.count >= 2 ? members : []
    }
}
