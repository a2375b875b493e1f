import ConfCore

/// The loss-based bound of GCC (draft-ietf-rmcat-gcc-02 section 6), evaluated per window of
/// reported packets, with loss fraction p:
///
///     p > 10 %       bound = rate × (1 − 0.5 p)     at most once per 300 ms + round trip
///     p < 2 %        bound = bound × 1.05
///     otherwise      bound held
///
/// `rate` is what we send at (the link's target). A window closes with a feedback message once it
/// holds `minimumPackets` reported packets (libwebrtc's limit: fewer make a noisy fraction); a
/// receiver report's fraction is a window of its own.
///
/// Unlike libwebrtc, which keeps one loss-based rate that the delay-based estimate caps, the
/// bound is nil (no limit) until loss first goes over 10 %, and becomes nil again once it has grown
/// past the other bounds (`ceiling`): so a few percent of random loss, which is not congestion,
/// does not pin the rate while the delay-based estimate grows. With no other bound at all (a peer
/// that sends neither transport feedback nor REMB) the bound is the estimate itself and ramps
/// from the current rate.
///
/// Loss is congestion only when the path says so too. Where transport feedback gives a delay
/// signal, a window over 10 % lowers the bound only while the queues grow (`congested`: the
/// detector over-uses, or packets wait well above the emptiest path seen), or when the loss on
/// average (`averageFraction`, over about ten windows once five are in) is past `randomLossLimit`,
/// or when one window lost more than `heavyLossLimit` (a policer that drops without queueing):
/// a radio link that drops 15 % at random with empty queues keeps its rate, and NACK repairs the
/// video, where GCC alone would walk the rate down to its floor. The average, not the window,
/// between the two limits: 20 packets at 15 % hold 6 or more lost (30 %) one window in 15, and
/// each such window cut the bound by 15 % while nothing at that loss grows it again (it paused the
/// video in 6 simulated calls of 20 at 15 % loss); more than half of 20 lost comes about one window
/// in 5,000 at 15 %.
struct LossBasedEstimator: Sendable {
    var highLoss = 0.10
    /// Above this on average a loss lowers the bound whatever the queues say.
    var randomLossLimit = 0.25
    /// Above this in one window a loss lowers the bound whatever the queues say.
    var heavyLossLimit = 0.5
    var lowLoss = 0.02
    var increase = 1.05
    var minimumPackets = 20
    var decreaseInterval: Duration = .milliseconds(300)
    private(set) var bound: Double?
    private(set) var lastFraction: Double?
    /// The windows' loss fraction averaged: their mean over the first ten, then a moving average
    /// that weighs the newest a tenth.
    private(set) var averageFraction = 0.0
    private var windows = 0
    /// Windows averaged before the average may call heavy loss more than random.
    var windowsBeforeJudging = 5
    private var lost = 0
    private var reported = 0
    private var lastDecrease: Instant?

    /// Counts one feedback message's reports; evaluates when the window is full. `congested`: the
    /// delay signal sees queues building (nil where there is no delay signal).
    mutating func onReports(lost newlyLost: Int, total: Int, rate: Double, ceiling: Double?, roundTrip: Duration, congested: Bool? = nil,
                            now: Instant) {
        lost = lost &+ max(0, newlyLost)
        reported = reported &+ max(0, total)
        guard reported >= minimumPackets else { return }
        let fraction = Double(lost) / Double(reported)
        lost = 0
        reported = 0
        evaluate(fraction, rate: rate, ceiling: ceiling, roundTrip: roundTrip, congested: congested, now: now)
    }

    /// A loss fraction over some interval (RTCP receiver report, RFC 3550 section 6.4.1).
    mutating func onFraction(_ fraction: Double, rate: Double, ceiling: Double?, roundTrip: Duration, now: Instant) {
        guard fraction.isFinite else { return }
        evaluate(min(1, max(0, fraction)), rate: rate, ceiling: ceiling, roundTrip: roundTrip, now: now)
    }

    private mutating func evaluate(_ fraction: Double, rate: Double, ceiling: Double?, roundTrip: Duration, congested: Bool? = nil,
                                   now: Instant) {
        lastFraction = fraction
        windows += 1
        averageFraction += (fraction - averageFraction) / Double(min(windows, 10))
        let averageSaysRandom = windows < windowsBeforeJudging || averageFraction <= randomLossLimit
        if fraction > highLoss, congested == false, fraction <= heavyLossLimit, averageSaysRandom {
            return  // random loss on a path whose queues are not growing: held, not lowered
        }
        if fraction > highLoss {
            if let last = lastDecrease, now.since(last) < decreaseInterval + roundTrip { return }
            bound = min(bound ?? rate, rate) * (1 - 0.5 * fraction)
            lastDecrease = now
        } else if fraction < lowLoss {
            let grown = (bound ?? rate) * increase
            if let ceiling, grown >= ceiling { bound = nil } else if bound != nil || ceiling == nil { bound = grown }
        } else if bound == nil && ceiling == nil {
            bound = rate
        }
    }
}
