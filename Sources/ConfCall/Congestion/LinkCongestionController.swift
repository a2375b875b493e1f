import ConfCore

/// One link's congestion control, as the engine holds it per peer: the bandwidth estimate, the
/// pacer that follows it, and the transport-wide sequence numbers
/// (draft-holmer-rmcat-transport-wide-cc-extensions-01 section 2), handed out as packets leave the
/// pacer, so that the numbers follow the order on the wire. Pure; time is passed in.
///
/// Use: `enqueue` each RTP packet (plain, before SRTP) with its expected size on the wire;
/// `poll(now:)` at `nextDeadline` and after each enqueue: stamp each packet's number (its low 16
/// bits) into its header extension, protect and transmit it. Feed RTCP: transport feedback (its
/// 16-bit numbers made whole with `sequence(nearest:)`), REMB, receiver reports, round trips.
/// Give `target` to the encoders.
public struct LinkCongestionController<Item: Sendable>: Sendable {
    // `target` and `nextDeadline` are kept as stored copies, refreshed on every change: the
    // engine reads them for each packet and deadline through its per-link class, where reading a
    // computed property of this struct copies the whole struct first.
    public private(set) var estimator: LinkBandwidthEstimator { didSet { target = share ?? estimator.target } }
    public private(set) var pacer: Pacer<Item> { didSet { nextDeadline = pacer.nextDeadline } }
    /// Bits per second the encoders may produce for this link, in total: the estimate, or while
    /// the link shares a queue with others the rate they all send at (`share(_:now:)`).
    public private(set) var target: Int
    /// Set while the link shares one bottleneck with others (`SharedBottleneck`): the one rate
    /// they all send at, in place of its own estimate. One rate for all, even under its own:
    /// links of one encoding at different rates get different layers, and that is the drift.
    public private(set) var share: Int?
    /// When to `poll` next; nil while nothing waits.
    public private(set) var nextDeadline: Instant?
    /// The next transport-wide sequence number; the first is 1.
    private var nextSequence: Int64 = 1
    /// When the link probes, and towards what.
    private(set) var probes = ProbeController()

    public init(estimator configuration: LinkBandwidthEstimator.Configuration = .init(),
                pacer pacerConfiguration: Pacer<Item>.Configuration = .init()) {
        let estimator = LinkBandwidthEstimator(configuration: configuration)
        let pacer = Pacer<Item>(targetBitsPerSecond: estimator.target, configuration: pacerConfiguration)
        self.estimator = estimator
        self.pacer = pacer
        target = estimator.target
        nextDeadline = pacer.nextDeadline
    }

    public var statistics: LinkBandwidthStatistics { estimator.statistics }

    public mutating func enqueue(_ item: Item, size: Int, priority: PacketPriority, now: Instant) {
        pacer.enqueue(item, size: size, priority: priority, now: now)
    }

    /// Drops what waits in the pacer at `priority`; how many went.
    @discardableResult
    public mutating func dropQueued(_ priority: PacketPriority) -> Int { pacer.dropQueued(priority) }

    /// What leaves now, each with its transport-wide sequence number, recorded as sent now.
    /// `cluster`: which probe cluster an item belongs to, if any.
    public mutating func poll(now: Instant, cluster: (Item) -> Int? = { _ in nil }) -> [(item: Item, sequence: Int64)] {
        pacer.pollSized(now: now).map { item, size in
            let sequence = nextSequence
            nextSequence += 1
            estimator.onSent(sequence: sequence, size: size, at: now, cluster: cluster(item))
            return (item, sequence)
        }
    }

    /// The whole sequence number whose low 16 bits are `wire`, nearest to the last one sent.
    public func sequence(nearest wire: UInt16) -> Int64 {
        let latest = max(0, nextSequence - 1)
        var candidate = (latest & ~0xFFFF) | Int64(wire)
        if candidate - latest > 0x8000 { candidate -= 0x1_0000 } else if latest - candidate > 0x8000 { candidate += 0x1_0000 }
        return candidate
    }

    /// After a rate update of a link that carries video: the probe cluster to send, if one is
    /// due (`ProbeController.afterFall`).
    mutating func probeAfterFall(updateSpacing: Duration, mayProbe: Bool, now: Instant) -> ProbeController.Cluster? {
        probes.afterFall(target: target, statistics: statistics, updateSpacing: updateSpacing, mayProbe: mayProbe, now: now)
    }

    /// After a rate update of a paused link: the padding to send and the probe cluster, if one
    /// is due (`ProbeController.whilePaused`).
    mutating func probeWhilePaused(wanted: Double, audio: Double, updateSpacing: Duration, now: Instant) -> ProbeController.WhilePaused? {
        if probes.queueIsNotOurs(statistics, now: now) { estimator.takeQueueDelayAsThePaths(now: now) }
        return probes.whilePaused(target: target, wanted: wanted, audio: audio, statistics: statistics, updateSpacing: updateSpacing, now: now)
    }

    public mutating func onProbe(cluster: Int, aimedAt bitsPerSecond: Double, packets: Int) {
        estimator.onProbe(cluster: cluster, aimedAt: bitsPerSecond, packets: packets)
    }

    /// `senderHeldUp`: our own loop ran late lately (`LoopLateness`; `StandingQueueGuard.judge`).
    public mutating func onFeedback(_ packets: [PacketFeedback], at now: Instant, senderHeldUp: Bool = false) {
        estimator.onFeedback(packets, at: now, senderHeldUp: senderHeldUp, allowed: target)
        pacer.setTarget(bitsPerSecond: target, now: now)
    }

    public mutating func onReceiverEstimate(bitsPerSecond: Int, at now: Instant) {
        estimator.onReceiverEstimate(bitsPerSecond: bitsPerSecond, at: now)
        pacer.setTarget(bitsPerSecond: target, now: now)
    }

    public mutating func onLossReport(fraction: Double, at now: Instant) {
        estimator.onLossReport(fraction: fraction, at: now)
        pacer.setTarget(bitsPerSecond: target, now: now)
    }

    /// Sends at `bitsPerSecond` instead of the link's own estimate (nil: its own again).
    public mutating func share(_ bitsPerSecond: Int?, now: Instant) {
        guard share != bitsPerSecond else { return }
        share = bitsPerSecond
        target = share ?? estimator.target
        pacer.setTarget(bitsPerSecond: target, now: now)
    }

    public mutating func onRoundTrip(_ roundTrip: Duration, at now: Instant) {
        estimator.onRoundTrip(roundTrip, at: now)
    }
}
