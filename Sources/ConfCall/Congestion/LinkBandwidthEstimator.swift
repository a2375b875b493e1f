import ConfCore

/// The sender-side bandwidth estimate of one link (GCC, draft-ietf-rmcat-gcc-02, shaped after
/// libwebrtc's GoogCC): what we may send to this peer, in bits per second. Pure; time is passed in.
///
/// Inputs, each with `at` on our clock:
/// - `onSent` for every packet that carries a transport-wide sequence number, when it leaves
///   (after the pacer), with its size on the wire;
/// - `onFeedback` for every transport feedback message, its packets mapped to `PacketFeedback`;
/// - `onReceiverEstimate` for REMB, `onLossReport` for the fraction lost of an RTCP receiver
///   report (used only while no transport feedback came in the last `lossReportOverlap`), and
///   `onRoundTrip` whenever the RTCP round trip is measured.
///
/// `target` is the least of the delay-based estimate (once transport feedback came), the loss
/// bound and the receiver's estimate, clamped to `minimum...maximum`; it changes only on inputs.
/// From a peer that sends REMB but no transport feedback, REMB (the receiver's own delay-based
/// estimate) is taken as it is; from one that sends neither, the loss bound ramps from `start`.
public struct LinkBandwidthEstimator: Sendable {
    public struct Configuration: Sendable {
        /// Bits per second.
        public var minimum = 30_000
        public var maximum = 2_500_000
        public var start = 300_000
        /// Sent packets are kept for matching this long, and at most `historyCapacity` of them.
        public var historyAge: Duration = .seconds(60)
        public var historyCapacity = 20_000
        public var lossReportOverlap: Duration = .seconds(2)

        public init() {}
    }

    public let configuration: Configuration
    private var history: SentPacketHistory
    private var acknowledged = BitrateWindow()
    /// What we sent, on our clock: under `applicationLimitedShare` of what we may, the link is
    /// application-limited (`AIMDRateControl`).
    private var sent = BitrateWindow()
    private var prober = ProbeBitrateEstimator()
    private(set) var delayBased: DelayBasedEstimator
    private(set) var lossBased = LossBasedEstimator()
    private var receiverEstimate: Double?
    private var lastTransportFeedback: Instant?
    public private(set) var roundTrip: Duration?
    /// Bits per second.
    public private(set) var target: Int

    public init(configuration: Configuration = .init()) {
        var configuration = configuration
        configuration.minimum = max(1000, configuration.minimum)
        configuration.maximum = max(configuration.minimum, configuration.maximum)
        configuration.start = min(configuration.maximum, max(configuration.minimum, configuration.start))
        self.configuration = configuration
        history = SentPacketHistory(capacity: configuration.historyCapacity, maximumAge: configuration.historyAge)
        delayBased = DelayBasedEstimator(start: Double(configuration.start), minimum: Double(configuration.minimum),
                                         maximum: Double(configuration.maximum))
        target = configuration.start
    }

    /// Packets waiting this much longer than on the emptiest path seen: the queues are growing.
    static let congestedQueueDelay: Duration = .milliseconds(30)

    /// `cluster`: the probe cluster the packet belongs to (`ProbeBitrateEstimator`), if any.
    public mutating func onSent(sequence: Int64, size: Int, at now: Instant, cluster: Int? = nil) {
        history.record(sequence: sequence, size: size, at: now, cluster: cluster)
        sent.add(at: now, size: size)
    }

    /// Probe cluster `cluster` is leaving, aimed at `bitsPerSecond` in `packets` packets: what it
    /// shows is capped there, and judged once most of them are in.
    public mutating func onProbe(cluster: Int, aimedAt bitsPerSecond: Double, packets: Int) {
        prober.aim(cluster: cluster, bitsPerSecond: bitsPerSecond, packets: packets)
    }

    /// Sending under this share of what we may is application-limited (libwebrtc's ALR detector
    /// says so under 0.65 of its budget; lower here, where a link sent only some of the encoder's
    /// temporal layers is still filling its rate).
    static let applicationLimitedShare = 0.5

    /// `senderHeldUp`: our own loop ran late lately (`LoopLateness`; `StandingQueueGuard.judge`).
    /// `allowed`: what the link may send now, when not `target` (a shared bottleneck's share).
    public mutating func onFeedback(_ packets: [PacketFeedback], at now: Instant, senderHeldUp: Bool = false, allowed: Int? = nil) {
        let reports = history.match(packets, now: now)
        guard !reports.isEmpty else { return }
        lastTransportFeedback = now
        var lost = 0
        for report in reports {
            if let arrival = report.arrival { acknowledged.add(at: arrival, size: report.size) } else { lost += 1 }
        }
        var probed: Double?
        for report in reports {
            guard let cluster = report.cluster, let arrival = report.arrival,
                  let result = prober.received(cluster: cluster, sentAt: report.sentAt, arrival: arrival, size: report.size) else { continue }
            probed = max(probed ?? 0, result)
        }
        sent.advance(to: now)
        let applicationLimited = sent.bitsPerSecond.map { $0 < Self.applicationLimitedShare * Double(allowed ?? target) } ?? false
        delayBased.update(reports, acknowledged: acknowledged.bitsPerSecond, senderHeldUp: senderHeldUp,
                          applicationLimited: applicationLimited, now: now)
        // A probe that got through unqueued shows room the estimate has not grown into yet
        // (libwebrtc sets its rate to the probe's result); never while the path is over-used.
        if let probed, delayBased.usage != .overusing, probed > delayBased.rate { delayBased.setRate(probed, now: now) }
        let queued = delayBased.queueDelay.queueDelay ?? .zero
        let congested = delayBased.usage == .overusing || queued > Self.congestedQueueDelay
        lossBased.onReports(lost: lost, total: reports.count, rate: Double(target), ceiling: ceiling,
                            roundTrip: roundTrip ?? .zero, congested: congested, now: now)
        updateTarget()
    }

    /// The queue our packets wait in now is the path's own, not a queue to drain
    /// (`ProbeController.queueIsNotOurs`; `QueueDelayMeter.rebase`).
    mutating func takeQueueDelayAsThePaths(now: Instant) {
        delayBased.takeQueueDelayAsThePaths(now: now)
    }

    public mutating func onReceiverEstimate(bitsPerSecond: Int, at now: Instant) {
        receiverEstimate = Double(max(configuration.minimum, bitsPerSecond))
        updateTarget()
    }

    /// `fraction` lost, 0...1 (an RTCP report's 8-bit field divided by 256).
    public mutating func onLossReport(fraction: Double, at now: Instant) {
        if let last = lastTransportFeedback, now.since(last) < configuration.lossReportOverlap { return }
        lossBased.onFraction(fraction, rate: Double(target), ceiling: ceiling, roundTrip: roundTrip ?? .zero, now: now)
        updateTarget()
    }

    public mutating func onRoundTrip(_ roundTrip: Duration, at now: Instant) {
        guard roundTrip >= .zero, roundTrip < .seconds(60) else { return }
        self.roundTrip = roundTrip
        delayBased.setRoundTrip(roundTrip)
    }

    var hasTransportFeedback: Bool { lastTransportFeedback != nil }
    var receiverEstimateBound: Double? { receiverEstimate }
    var acknowledgedBitsPerSecond: Double? { acknowledged.bitsPerSecond }

    /// The bounds other than loss: the delay-based estimate once transport feedback came, REMB.
    private var ceiling: Double? {
        let delay = lastTransportFeedback == nil ? nil : delayBased.rate
        switch (delay, receiverEstimate) {
        case let (delay?, remb?): return min(delay, remb)
        case let (delay?, nil): return delay
        case let (nil, remb): return remb
        }
    }

    private mutating func updateTarget() {
        let bounds = [ceiling, lossBased.bound].compactMap { $0 }
        let lowest = bounds.min() ?? Double(configuration.start)
        let clamped = min(Double(configuration.maximum), max(Double(configuration.minimum), lowest))
        target = Int(clamped)
    }
}
