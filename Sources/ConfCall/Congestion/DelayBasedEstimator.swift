import ConfCore

/// The delay-based half of GCC (draft-ietf-rmcat-gcc-02 section 5) on the sender's side: received
/// packets, grouped into send bursts, give delay variations; their trend drives the over-use
/// detector, whose signal drives the AIMD rate. Takes one feedback message at a time.
struct DelayBasedEstimator: Sendable {
    private var grouper = InterArrivalGrouper()
    private var trendline = TrendlineEstimator()
    private var detector = OveruseDetector()
    private(set) var rateControl: AIMDRateControl
    private(set) var queueDelay = QueueDelayMeter()
    private var standingQueue = StandingQueueGuard()
    private var lastFeedback: Instant?
    /// The first arrival seen, the origin of the arrival times given to the filter (any clock).
    private var arrivalOrigin: Instant?
    /// A pause in feedback longer than this restarts the grouping and the trend (libwebrtc's
    /// stream timeout): the first groups after it would otherwise span the pause.
    var feedbackTimeout: Duration = .seconds(2)

    init(start: Double, minimum: Double, maximum: Double) {
        rateControl = AIMDRateControl(start: start, minimum: minimum, maximum: maximum)
    }

    var rate: Double { rateControl.rate }
    var usage: BandwidthUsage { detector.usage }
    var threshold: Double { detector.threshold }

    mutating func setRoundTrip(_ roundTrip: Duration) { rateControl.roundTrip = roundTrip }

    mutating func setRate(_ value: Double, now: Instant) { rateControl.setRate(value, now: now) }

    /// Takes the reports of one feedback message and the acknowledged rate after it.
    /// `applicationLimited`: we sent well under what we may lately (`AIMDRateControl`).
    mutating func update(_ reports: [SentPacketHistory.Report], acknowledged: Double?, senderHeldUp: Bool,
                         applicationLimited: Bool = false, now: Instant) {
        if let last = lastFeedback, now.since(last) > feedbackTimeout {
            grouper.reset()
            trendline = TrendlineEstimator(windowSize: trendline.windowSize, smoothing: trendline.smoothing)
            detector = OveruseDetector()
            standingQueue.reset()
        }
        lastFeedback = now
        standingQueue.noteFeedback(now: now)
        let received = reports.compactMap { report in report.arrival.map { (report, $0) } }
            .sorted { ($0.1, $0.0.sequence) < ($1.1, $1.0.sequence) }
        guard let first = received.first else { return }
        queueDelay.update(received.map(\.0), now: now)
        let origin = arrivalOrigin ?? first.1
        arrivalOrigin = origin
        for (report, arrival) in received {
            guard let delta = grouper.add(sentAt: report.sentAt, arrival: arrival, now: now) else { continue }
            let arrivalMilliseconds = delta.arrival.milliseconds(since: origin)
            let trend = trendline.update(sendDelta: delta.sendDelta, arrivalDelta: delta.arrivalDelta, arrival: arrivalMilliseconds)
            detector.detect(trend: trend, deltaCount: trendline.deltaCount, sendDelta: delta.sendDelta, arrival: arrivalMilliseconds)
        }
        if detector.usage == .overusing,
           !rateControl.mayReduceFurther(now: now, acknowledged: applicationLimited ? nil : acknowledged) { return }
        let verdict = standingQueue.judge(reports, meter: queueDelay, senderHeldUp: senderHeldUp,
                                          applicationLimited: applicationLimited, now: now)
        // Only sparse feedback slows the increase: conf's own (100-250 ms) leaves it libwebrtc's.
        rateControl.feedbackSpacing = standingQueue.isSparse ? .milliseconds(exactly: standingQueue.spacing ?? 100) : .milliseconds(100)
        switch verdict {
        case .follow:
            rateControl.update(detector.usage, acknowledged: acknowledged, applicationLimited: applicationLimited, now: now)
        case .hold:
            // Not even for an over-use: the guard cut for the queue already, and what grows
            // in packets sent since the cut makes it cut again.
            rateControl.hold(now: now)
        case .drain(let fraction):
            rateControl.drain(fraction: fraction, acknowledged: acknowledged, now: now)
        case .rebase:
            queueDelay.rebase(now: now)
            rateControl.update(detector.usage, acknowledged: acknowledged, applicationLimited: applicationLimited, now: now)
        }
    }

    /// The queue our packets wait in now is the path's own (`QueueDelayMeter.rebase`).
    mutating func takeQueueDelayAsThePaths(now: Instant) {
        queueDelay.rebase(now: now)
    }
}
