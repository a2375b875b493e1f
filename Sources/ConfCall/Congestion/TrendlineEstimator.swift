/// The slope of the one-way delay over time: how fast the bottleneck's queue grows, as a fraction
/// (0.1: it grows 0.1 ms per ms, we send 10 % above what the path carries; negative: it drains).
///
/// libwebrtc's TrendlineEstimator, chosen over draft-ietf-rmcat-gcc-02's Kalman filter (section
/// 5.3) because it is what deployed GCC runs (the Kalman "overuse estimator" left libwebrtc's send
/// side), it has fewer constants to tune, and a least-squares slope over a window reacts to a
/// queue that grows steadily, not to one delay sample. The group delay variations are
/// accumulated into a delay curve, smoothed exponentially (`smoothing`), and a line is fitted
/// through the last `windowSize` points (x: arrival time since the first group, y: smoothed delay).
struct TrendlineEstimator: Sendable {
    let windowSize: Int
    let smoothing: Double
    /// Deltas seen so far, capped: the detector's gain grows with it up to a limit.
    private(set) var deltaCount = 0
    private var accumulatedDelay = 0.0
    private var smoothedDelay = 0.0
    private var firstArrival: Double?
    private var points = FIFOQueue<(x: Double, y: Double)>()
    private(set) var trend = 0.0

    init(windowSize: Int = 20, smoothing: Double = 0.9) {
        self.windowSize = max(2, windowSize)
        self.smoothing = smoothing
    }

    /// Takes one group delta (milliseconds; `arrival` on the receiver's clock, in ms from any
    /// origin) and returns the current slope.
    @discardableResult
    mutating func update(sendDelta: Double, arrivalDelta: Double, arrival: Double) -> Double {
        let variation = arrivalDelta - sendDelta
        guard variation.isFinite, arrival.isFinite else { return trend }
        deltaCount = min(deltaCount + 1, 1000)
        let origin = firstArrival ?? arrival
        firstArrival = origin
        accumulatedDelay += variation
        smoothedDelay = smoothing * smoothedDelay + (1 - smoothing) * accumulatedDelay
        points.append((arrival - origin, smoothedDelay))
        if points.count > windowSize { points.popFirst() }
        if points.count == windowSize, let slope = Self.slope(of: points) { trend = slope }
        return trend
    }

    /// The least-squares slope of y over x; nil when every x is the same.
    private static func slope(of points: FIFOQueue<(x: Double, y: Double)>) -> Double? {
        let all = points.elements
        let meanX = all.reduce(0) { $0 + $1.x } / Double(all.count)
        let meanY = all.reduce(0) { $0 + $1.y } / Double(all.count)
        var numerator = 0.0, denominator = 0.0
        for point in all {
            numerator += (point.x - meanX) * (point.y - meanY)
            denominator += (point.x - meanX) * (point.x - meanX)
        }
        guard denominator != 0 else { return nil }
        let slope = numerator / denominator
        return slope.isFinite ? slope : nil
    }
}
