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
/// What the group is for (RFC 8699's flow state exchange, with equal priorities): the links in it
/// split the sum of their estimates evenly, instead of each controller taking what it can from
/// the same queue (where the first to back off keeps losing).
struct SharedBottleneck<ID: Hashable & Sendable>: Sendable {
    var window: Duration = .seconds(8)
    var minimumCoincidences = 3
    var congestedDelay: Duration = .milliseconds(15)
    var agreement = 1.6
    var agreementSlack: Duration = .milliseconds(10)

    /// Each coincidence: when, and the links in it.
    private var coincidences: [(at: Instant, links: Set<ID>)] = []

    /// One sample of every connected link's queue delay (nil: not measured yet).
    mutating func record(_ delays: [(id: ID, queueDelay: Duration?)], now: Instant) {
        coincidences.removeAll { now.since($0.at) > window }
        let congested = delays.compactMap { entry -> (id: ID, delay: Double)? in
            guard let delay = entry.queueDelay, delay >= congestedDelay else { return nil }
            return (entry.id, delay.milliseconds)
        }
        guard congested.count >= 2 else { return }
        // The largest set whose delays agree: around the median, which a lone outlier cannot move.
        let sorted = congested.sorted { $0.delay < $1.delay }
        let middle = sorted[sorted.count / 2].delay
        let slack = agreementSlack.milliseconds
        let agreeing = sorted.filter { entry in
            (entry.delay <= middle * agreement || entry.delay <= middle + slack)
                && (middle <= entry.delay * agreement || middle <= entry.delay + slack)
        }
        guard agreeing.count >= 2 else { return }
        coincidences.append((now, Set(agreeing.map(\.id))))
    }

    /// The links that share a queue now; empty when no such evidence is recent.
    func group(now: Instant) -> Set<ID> {
        let recent = coincidences.filter { now.since($0.at) <= window }
        guard recent.count >= minimumCoincidences else { return [] }
        var counts: [ID: Int] = [:]
        for coincidence in recent {
            for id in coincidence.links { counts[id, default: 0] += 1 }
        }
        let members = Set(counts.filter { 2 * $0.value >= recent.count }.keys)
        return members.count >= 2 ? members : []
    }
}
