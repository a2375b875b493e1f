import ConfCore

/// What a link's estimator knows, for stats and the screen.
public struct LinkBandwidthStatistics: Sendable, Equatable {
    /// Bits per second: what we may send (the least of the bounds below, clamped).
    public var target: Int
    /// The delay-based estimate; nil before transport feedback came.
    public var delayBased: Int?
    /// The loss bound; nil while loss does not limit.
    public var lossBound: Int?
    /// The receiver's estimate (REMB); nil when none came.
    public var receiverEstimate: Int?
    /// What the receiver got over the last half second, from transport feedback.
    public var acknowledged: Int?
    public var roundTrip: Duration?
    /// The loss fraction of the last evaluated window, 0...1.
    public var lossFraction: Double?
    /// How long the last feedback's packets waited in queues above the emptiest path seen lately.
    public var queueDelay: Duration?
    /// What even the least delayed of the last feedback's packets waited: a queue that stood
    /// through the whole message, where `queueDelay` also counts jitter (a starved CPU's late reads).
    public var standingQueueDelay: Duration?
    /// The over-use detector's last signal.
    public var usage: BandwidthUsage
}

extension LinkBandwidthEstimator {
    public var statistics: LinkBandwidthStatistics {
        LinkBandwidthStatistics(
            target: target,
            delayBased: hasTransportFeedback ? Int(delayBased.rate) : nil,
            lossBound: lossBased.bound.map { Int(min(9e18, $0)) },
            receiverEstimate: receiverEstimateBound.map { Int(min(9e18, $0)) },
            acknowledged: acknowledgedBitsPerSecond.map { Int(min(9e18, $0)) },
            roundTrip: roundTrip,
            lossFraction: lossBased.lastFraction,
            queueDelay: delayBased.queueDelay.queueDelay,
            standingQueueDelay: delayBased.queueDelay.standingQueueDelay,
            usage: delayBased.usage)
    }
}
