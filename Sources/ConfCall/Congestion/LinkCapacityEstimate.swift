/// What the path carried when it was last over-used: an exponential average of the acknowledged
/// rate at each over-use, with its normalised variance (draft-ietf-rmcat-gcc-02 section 5.5: the
/// average and standard deviation of R_hat at decreases; the bounds are libwebrtc's). The rate
/// controller is "near convergence" while the acknowledged rate is within the bounds, and
/// forgets the estimate when the rate leaves them (the path changed).
struct LinkCapacityEstimate: Sendable {
    /// Kilobits per second.
    private(set) var estimate: Double?
    /// Variance over the estimate (kbit/s), clamped to 0.4...2.5.
    private var deviation = 0.4
    var smoothing = 0.05

    var hasEstimate: Bool { estimate != nil }

    /// Bits per second: the estimate plus three standard deviations.
    var upperBound: Double? { estimate.map { ($0 + 3 * ($0 * deviation).squareRoot()) * 1000 } }
    var lowerBound: Double? { estimate.map { max(0, $0 - 3 * ($0 * deviation).squareRoot()) * 1000 } }

    mutating func overuseDetected(acknowledged bitsPerSecond: Double) {
        let sample = bitsPerSecond / 1000
        guard sample.isFinite, sample >= 0 else { return }
        let updated = estimate.map { (1 - smoothing) * $0 + smoothing * sample } ?? sample
        let error = updated - sample
        deviation = (1 - smoothing) * deviation + smoothing * error * error / max(updated, 1)
        deviation = min(2.5, max(0.4, deviation))
        estimate = updated
    }

    mutating func reset() { estimate = nil }
}
