import ConfCore

/// Groups received packets into the bursts they were sent in and gives, for each pair of
/// consecutive groups, how much further apart they arrived than they were sent
/// (draft-ietf-rmcat-gcc-02 section 5.2, the pre-filtering; the burst rule is libwebrtc's
/// InterArrivalDelta). A group is the packets sent within `groupLength` of its first one; a
/// packet that arrives within `burstDelta` of the group's last one, later than its send spacing
/// would predict, joins the group too (it queued behind it), as long as the group spans less
/// than `maximumBurst` of arrivals.
///
/// Packets come in arrival order. One sent before the current group's first packet was reordered
/// and is skipped. Three groups in a row that arrive before their predecessor, or an arrival clock
/// that jumps by more than `clockJump` against our own, reset the grouping.
struct InterArrivalGrouper: Sendable {
    /// The spacing of two consecutive groups, in milliseconds.
    struct Delta: Sendable, Equatable {
        var sendDelta: Double
        var arrivalDelta: Double
        /// The later group's last arrival (receiver's clock).
        var arrival: Instant
    }

    private struct Group: Sendable {
        var firstSent: Instant
        var lastSent: Instant
        var firstArrival: Instant
        var lastArrival: Instant
        /// Our clock when the group's last packet was reported.
        var reportedAt: Instant
    }

    var groupLength: Duration = .milliseconds(5)
    var burstDelta: Duration = .milliseconds(5)
    var maximumBurst: Duration = .milliseconds(100)
    var clockJump: Duration = .seconds(3)
    private var current: Group?
    private var previous: Group?
    private var reorderedGroups = 0

    /// Takes one received packet; returns the spacing of the two groups before it when this packet
    /// opens a new group.
    mutating func add(sentAt: Instant, arrival: Instant, now: Instant) -> Delta? {
        guard var group = current else {
            current = Group(firstSent: sentAt, lastSent: sentAt, firstArrival: arrival, lastArrival: arrival, reportedAt: now)
            return nil
        }
        if sentAt < group.firstSent { return nil }
        if !startsNewGroup(group, sentAt: sentAt, arrival: arrival) {
            group.lastSent = max(group.lastSent, sentAt)
            group.lastArrival = arrival
            group.reportedAt = now
            current = group
            return nil
        }
        var delta: Delta?
        if let previous {
            let candidate = Delta(sendDelta: group.lastSent.milliseconds(since: previous.lastSent),
                                  arrivalDelta: group.lastArrival.milliseconds(since: previous.lastArrival),
                                  arrival: group.lastArrival)
            let localDelta = group.reportedAt.milliseconds(since: previous.reportedAt)
            if candidate.arrivalDelta - localDelta >= clockJump.milliseconds {
                reset()
                return nil
            }
            if candidate.arrivalDelta < 0 {
                reorderedGroups += 1
                if reorderedGroups >= 3 { reset() }
                return nil
            }
            reorderedGroups = 0
            delta = candidate
        }
        previous = group
        current = Group(firstSent: sentAt, lastSent: sentAt, firstArrival: arrival, lastArrival: arrival, reportedAt: now)
        return delta
    }

    mutating func reset() {
        current = nil
        previous = nil
        reorderedGroups = 0
    }

    private func startsNewGroup(_ group: Group, sentAt: Instant, arrival: Instant) -> Bool {
        if belongsToBurst(group, sentAt: sentAt, arrival: arrival) { return false }
        return sentAt.milliseconds(since: group.firstSent) > groupLength.milliseconds
    }

    private func belongsToBurst(_ group: Group, sentAt: Instant, arrival: Instant) -> Bool {
        let arrivalDelta = arrival.milliseconds(since: group.lastArrival)
        let sendDelta = sentAt.milliseconds(since: group.lastSent)
        if sendDelta == 0 { return true }
        return arrivalDelta - sendDelta < 0 && arrivalDelta <= burstDelta.milliseconds
            && arrival.milliseconds(since: group.firstArrival) < maximumBurst.milliseconds
    }
}
