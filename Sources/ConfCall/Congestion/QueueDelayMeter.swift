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
    /// Milliseconds, the least one-way delay among the last feedback message's packets.
    private var latestLeast: Double?

    /// Takes the received packets of one feedback message.
    mutating func update(_ reports: [SentPacketHistory.Report], now: Instant) {
        if bucketStart.map({ now.since($0) >= span }) ?? true {
            previousMinimum = bucketStart == nil ? .infinity : currentMinimum
            currentMinimum = .infinity
            bucketStart = now
        }
        var sum = 0.0, count = 0, least = Double.infinity
        for report in reports {
            guard let arrival = report.arrival else { continue }
            let oneWay = arrival.milliseconds(since: report.sentAt)
            least = min(least, oneWay)
            sum += oneWay
            count += 1
        }
        guard count > 0 else { return }
        currentMinimum = min(currentMinimum, least)
        latest = sum / Double(count)
        latestLeast = least
    }

    /// The queuing delay of the last feedback's packets; nil before any packet arrived.
    var queueDelay: Duration? { above(latest) }

    /// The queuing delay that even the least delayed packet of the last feedback met: a queue
    /// that stood through the whole message, not a burst's own (a frame sent at once waits
    /// behind itself). Nil before any packet arrived.
    var standingQueueDelay: Duration? { above(latestLeast) }

    /// As `standingQueueDelay`, over those of `reports` sent after `instant`; nil if none arrived.
    func standingQueueDelay(of reports: [SentPacketHistory.Report], sentAfter instant: Instant) -> Duration? {
        var least: Double?
        for report in reports where report.sentAt > instant {
            guard let arrival = report.arrival else { continue }
            least = min(least ?? .infinity, arrival.milliseconds(since: report.sentAt))
        }
        return above(least)
    }

    /// Takes the last feedback's least delay as the empty path's from now on: for a queue that
    /// did not shrink when we sent less, so not ours to drain (a longer route, or another flow
    /// that keeps the bottleneck full).
    mutating func rebase(now: Instant) {
        guard let latestLeast else { return }
        currentMinimum = latestLeast
        previousMinimum = .infinity
        bucketStart = now
    }

    private func above(_ oneWay: Double?) -> Duration? {
        guard let oneWay else { return nil }
        let baseline = min(currentMinimum, previousMinimum)
        guard baseline.isFinite else { return nil }
        return .milliseconds(exactly: max(0, oneWay - baseline))
    }
}
