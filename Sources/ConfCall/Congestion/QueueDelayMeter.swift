import ConfCore

/// How long our packets wait in queues along the path: the one-way delay (receiver's arrival
/// minus our send time, so with the two clocks' unknown offset) above the smallest one-way delay
/// seen lately, which stands for the empty path. "Lately" is two `span`s of our clock, kept as two
/// buckets, so the baseline follows a route change or the clocks' drift within a minute.
struct QueueDelayMeter: Sendable {
    var span: Duration = .seconds(30)
    private var bucketStart: Instant?
    private var currentMinimum = Double.infinity
    private var previousMinimum = Double.infinity
    /// Milliseconds, the mean of the last feedback message's packets.
    private(set) var latest: Double?

    /// Takes the received packets of one feedback message.
    mutating func update(_ reports: [SentPacketHistory.Report], now: Instant) {
        if bucketStart.map({ now.since($0) >= span }) ?? true {
            previousMinimum = bucketStart == nil ? .infinity : currentMinimum
            currentMinimum = .infinity
            bucketStart = now
        }
        var sum = 0.0, count = 0
        for report in reports {
            guard let arrival = report.arrival else { continue }
            let oneWay = arrival.milliseconds(since: report.sentAt)
            currentMinimum = min(currentMinimum, oneWay)
            sum += oneWay
            count += 1
        }
        guard count > 0 else { return }
        latest = sum / Double(count)
    }

    /// The queuing delay of the last feedback's packets; nil before any packet arrived.
    var queueDelay: Duration? {
        guard let latest else { return nil }
        let baseline = min(currentMinimum, previousMinimum)
        guard baseline.isFinite else { return nil }
        return .milliseconds(exactly: max(0, latest - baseline))
    }
}
