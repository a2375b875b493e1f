import ConfCore

/// Whether the path is being over-used, from the delay trend (draft-ietf-rmcat-gcc-02 section
/// 5.4, with libwebrtc's trendline scaling and constants).
public enum BandwidthUsage: String, Sendable, Equatable {
    case normal, overusing, underusing
}

/// Compares the trend, scaled to milliseconds, with an adaptive threshold. Over-use is signalled
/// once the trend has stayed above the threshold for more than `overuseTime` and over at least
/// two groups, and is not falling; under-use as soon as it is below minus the threshold.
///
/// The threshold follows |trend| (draft section 5.4):
///     th(i) = th(i-1) + dt * k(i) * (|m(i)| - th(i-1)),   k = kUp when |m| > th, else kDown
/// with dt in ms (at most 100), th clamped to 6...600 ms, and no update when |m| is more than
/// 15 ms above th (a sudden spike, such as a route change, must not drag the threshold up).
/// The draft's k_u = 0.01 and k_d = 0.00018 are tuned for its Kalman filter's output; with the
/// trendline input libwebrtc uses k_up = 0.0087 and k_down = 0.039, and so do we.
struct OveruseDetector: Sendable {
    var gain = 4.0
    /// The trend is scaled by min(deltas, this) × gain, so that early, noisy slopes count less.
    var deltaCountCap = 60
    var kUp = 0.0087
    var kDown = 0.039
    var overuseTime = 10.0  // ms
    var maximumAdaptOffset = 15.0  // ms
    private(set) var threshold = 12.5  // ms
    private(set) var usage = BandwidthUsage.normal
    private var timeOverusing = -1.0  // ms; -1: not over the threshold
    private var overuseCount = 0
    private var previousTrend = 0.0
    private var lastThresholdUpdate: Double?  // arrival ms

    /// Takes the trend after one group; `sendDelta` is that group's send spacing (ms),
    /// `arrival` its arrival time (ms on the receiver's clock, any origin).
    @discardableResult
    mutating func detect(trend: Double, deltaCount: Int, sendDelta: Double, arrival: Double) -> BandwidthUsage {
        guard deltaCount >= 2, trend.isFinite else { return usage }
        let modified = Double(min(deltaCount, deltaCountCap)) * trend * gain
        if modified > threshold {
            timeOverusing = timeOverusing < 0 ? sendDelta / 2 : timeOverusing + sendDelta
            overuseCount += 1
            if timeOverusing > overuseTime && overuseCount > 1 && trend >= previousTrend {
                timeOverusing = 0
                overuseCount = 0
                usage = .overusing
            }
        } else if modified < -threshold {
            timeOverusing = -1
            overuseCount = 0
            usage = .underusing
        } else {
            timeOverusing = -1
            overuseCount = 0
            usage = .normal
        }
        previousTrend = trend
        adaptThreshold(modified, arrival: arrival)
        return usage
    }

    private mutating func adaptThreshold(_ modified: Double, arrival: Double) {
        let last = lastThresholdUpdate ?? arrival
        lastThresholdUpdate = arrival
        let magnitude = abs(modified)
        if magnitude > threshold + maximumAdaptOffset { return }
        let k = magnitude < threshold ? kDown : kUp
        let elapsed = max(0, min(arrival - last, 100))
        threshold = min(600, max(6, threshold + k * (magnitude - threshold) * elapsed))
    }
}
