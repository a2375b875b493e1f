/// What happened to the datagrams of one directed pair of a `SimulatedNetwork`. Every datagram sent,
/// and every copy made, ends in exactly one of the other counts:
/// `sent + duplicated == delivered + lost + partitioned + droppedByQueue + inFlight`.
struct LinkCounters: Equatable {
    var sent = 0
    var delivered = 0
    /// Lost to random or bursty loss.
    var lost = 0
    /// Extra copies made by duplication.
    var duplicated = 0
    /// Dropped because the bandwidth cap's queue was full.
    var droppedByQueue = 0
    /// Dropped because the pair was partitioned when it was sent or while it was on its way.
    var partitioned = 0
    /// Scheduled and not yet delivered.
    var inFlight = 0

    static func + (a: LinkCounters, b: LinkCounters) -> LinkCounters {
        LinkCounters(sent: a.sent + b.sent, delivered: a.delivered + b.delivered, lost: a.lost + b.lost,
                     duplicated: a.duplicated + b.duplicated, droppedByQueue: a.droppedByQueue + b.droppedByQueue,
                     partitioned: a.partitioned + b.partitioned, inFlight: a.inFlight + b.inFlight)
    }
}
