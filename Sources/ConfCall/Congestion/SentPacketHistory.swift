import ConfCore

/// The packets sent on one link, by transport-wide sequence number: when each left and how big it
/// was, so that feedback can be matched to sends. Bounded: an entry goes when it is older than
/// `maximumAge` or when `capacity` newer ones were recorded after it, whichever comes first.
/// Each packet is reported received at most once; a loss report for it counts once too.
struct SentPacketHistory: Sendable {
    /// A sent packet with what the feedback said of it (`arrival` nil: reported lost).
    struct Report: Sendable, Equatable {
        var sequence: Int64
        var sentAt: Instant
        /// Bytes on the wire.
        var size: Int
        var arrival: Instant?
        /// The probe cluster the packet was sent in, if any.
        var cluster: Int? = nil
    }

    private struct Entry: Sendable {
        var sentAt: Instant
        var size: Int
        var cluster: Int?
        var received = false
        var reportedLost = false
    }

    let capacity: Int
    let maximumAge: Duration
    private var entries: [Int64: Entry] = [:]
    /// The sequence numbers in the order they were recorded, for eviction; a number recorded
    /// twice appears twice and only the entry with the matching send time is evicted.
    private var order = FIFOQueue<(sequence: Int64, sentAt: Instant)>()

    init(capacity: Int = 20_000, maximumAge: Duration = .seconds(60)) {
        self.capacity = max(1, capacity)
        self.maximumAge = maximumAge
    }

    var count: Int { entries.count }

    mutating func record(sequence: Int64, size: Int, at now: Instant, cluster: Int? = nil) {
        entries[sequence] = Entry(sentAt: now, size: WireSize.clamped(size), cluster: cluster)
        order.append((sequence, now))
        evict(now: now)
    }

    /// The sends that `feedback` tells something new about, in the feedback's order. Numbers never
    /// sent (or long evicted), repeated receptions and repeated loss reports are left out, so the
    /// result never holds more than two reports per recorded packet.
    mutating func match(_ feedback: [PacketFeedback], now: Instant) -> [Report] {
        evict(now: now)
        var reports: [Report] = []
        for packet in feedback {
            guard var entry = entries[packet.sequence], !entry.received else { continue }
            if packet.arrival != nil {
                entry.received = true
            } else if entry.reportedLost {
                continue
            } else {
                entry.reportedLost = true
            }
            entries[packet.sequence] = entry
            reports.append(Report(sequence: packet.sequence, sentAt: entry.sentAt, size: entry.size, arrival: packet.arrival,
                                  cluster: entry.cluster))
        }
        return reports
    }

    private mutating func evict(now: Instant) {
        while let oldest = order.first, order.count > capacity || now.since(oldest.sentAt) > maximumAge {
            order.popFirst()
            if entries[oldest.sequence]?.sentAt == oldest.sentAt { entries[oldest.sequence] = nil }
        }
    }
}
