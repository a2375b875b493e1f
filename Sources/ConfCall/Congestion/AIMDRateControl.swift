import ConfCore

/// The delay-based rate: additive-increase, multiplicative-decrease driven by the over-use
/// signal (draft-ietf-rmcat-gcc-02 section 5.5). Bits per second.
///
///     signal \ state | Hold      Increase   Decrease
///     ---------------+-------------------------------
///     overusing      | Decrease  Decrease   Decrease
///     normal         | Increase  Increase   Hold
///     underusing     | Hold      Hold       Hold
///
/// A decrease sets the rate to `beta` × the acknowledged rate (what the path delivered, so the
/// queue we built can drain) and goes to Hold at once, where it stays until the signal is normal
/// again. An increase is multiplicative (8 % per second, `growthPerSecond`) while the link's
/// capacity is unknown, additive (about one packet per response time) while the acknowledged
/// rate is near the capacity seen at the last over-uses. No increase goes beyond 1.5 × the
/// acknowledged rate + 10 kbit/s (libwebrtc's limit: a sender that does not fill its rate must not
/// let the estimate run away). `hold(now:)` and `drain(fraction:...)` are the same moves made
/// for `StandingQueueGuard` instead of the detector.
///
/// While the link is application-limited (we send well under the rate: a paused link's audio, an
/// encoder still ramping up), what the path delivered is only what we gave it, and 0.85 of it
/// would be the floor at the first over-use, however the rate was found (the camera VM of
/// Tests/FLAKES.md, where a starved receiver's late reads read as over-use). A decrease is then
/// `beta` × the rate itself, once per round trip, and the link's capacity is not learnt from it.
///
/// Start-up: until the first over-use the rate grows by `startupGrowthPerSecond` (×2 per second)
/// instead of 8 %. libwebrtc finds the first capacity with probe bursts at 3× and 6× the start
/// rate; we probe only after a fall or while paused (`ProbeController`), and 8 % per second
/// from 300 kbit/s would take 15 s to reach 1 Mbit/s.
struct AIMDRateControl: Sendable {
    enum State: Sendable, Equatable { case hold, increase, decrease }

    var beta = 0.85
    var growthPerSecond = 1.08
    var startupGrowthPerSecond = 2.0
    let minimum: Double
    let maximum: Double
    private(set) var rate: Double
    private(set) var state = State.hold
    private(set) var inStartup = true
    private(set) var linkCapacity = LinkCapacityEstimate()
    var roundTrip: Duration = .milliseconds(100)
    /// How often transport feedback comes, smoothed: a peer that sends it sparsely answers later.
    var feedbackSpacing: Duration = .milliseconds(100)
    private var lastChange: Instant?
    private var lastAcknowledged: Double?

    init(start: Double, minimum: Double, maximum: Double) {
        self.minimum = minimum
        self.maximum = max(minimum, maximum)
        rate = min(self.maximum, max(minimum, start))
    }

    /// Whether an over-use may cut the rate again already: once per round trip (10...200 ms),
    /// or at once when the path delivers less than half the rate.
    func mayReduceFurther(now: Instant, acknowledged: Double?) -> Bool {
        guard let lastChange else { return true }
        let interval = min(200, max(10, roundTrip.milliseconds))
        if now.milliseconds(since: lastChange) >= interval { return true }
        return acknowledged.map { $0 < rate / 2 } ?? false
    }

    /// Takes the detector's signal after one feedback message and the acknowledged rate then.
    mutating func update(_ usage: BandwidthUsage, acknowledged: Double?, applicationLimited: Bool = false, now: Instant) {
        if let acknowledged { lastAcknowledged = acknowledged }
        let throughput = acknowledged ?? lastAcknowledged ?? rate
        switch usage {
        case .overusing: state = .decrease
        case .normal: if state == .hold { state = .increase }
        case .underusing: state = .hold
        }
        switch state {
        case .hold:
            break
        case .increase:
            increase(throughput: throughput, now: now)
        case .decrease where applicationLimited:
            decrease(to: beta * rate, now: now)
        case .decrease:
            decrease(throughput: throughput, beta: beta, now: now)
        }
    }

    /// Holds the rate, as if just changed: the next increase counts from now.
    mutating func hold(now: Instant) {
        state = .hold
        lastChange = now
    }

    /// Cuts the rate to `fraction` of what the path delivers (at most), as an over-use does.
    mutating func drain(fraction: Double, acknowledged: Double?, now: Instant) {
        if let acknowledged { lastAcknowledged = acknowledged }
        decrease(throughput: acknowledged ?? lastAcknowledged ?? rate, beta: fraction, now: now)
    }

    /// Overrides the rate (a receiver's estimate or the loss controller pinned it lower).
    mutating func setRate(_ value: Double, now: Instant) {
        guard value.isFinite else { return }
        rate = min(maximum, max(minimum, value))
        lastChange = now
    }

    private mutating func increase(throughput: Double, now: Instant) {
        if let upper = linkCapacity.upperBound, throughput > upper { linkCapacity.reset() }
        let elapsed = min(1, max(0, now.milliseconds(since: lastChange ?? now) / 1000))
        lastChange = now
        let limit = 1.5 * throughput + 10_000
        guard rate < limit else { return }
        let increased: Double
        if linkCapacity.hasEstimate {
            increased = rate + nearCapacityIncreasePerSecond * elapsed
        } else {
            let growth = inStartup ? startupGrowthPerSecond : growthPerSecond
            increased = rate + max(1000, rate * (growth.power(elapsed) - 1))
        }
        rate = min(maximum, max(minimum, min(increased, limit)))
    }

    private mutating func decrease(to decreased: Double, now: Instant) {
        rate = max(minimum, min(rate, decreased))
        inStartup = false
        state = .hold
        lastChange = now
    }

    private mutating func decrease(throughput: Double, beta: Double, now: Instant) {
        var decreased = beta * throughput
        if decreased > 5000 { decreased -= 5000 }
        if decreased > rate, let capacity = linkCapacity.estimate { decreased = beta * capacity * 1000 }
        if decreased < rate { rate = max(minimum, decreased) }
        if let lower = linkCapacity.lowerBound, throughput < lower { linkCapacity.reset() }
        linkCapacity.overuseDetected(acknowledged: throughput)
        inStartup = false
        state = .hold
        lastChange = now
    }

    /// Bits per second per second near convergence: one average packet per response time (the
    /// round trip + 100 ms for the detector, libwebrtc's; + the feedback spacing where that is
    /// longer), packets sized as a 30 fps video of this rate cut into packets of at most 1200
    /// bytes; at least 4 kbit/s per second.
    private var nearCapacityIncreasePerSecond: Double {
        let frameBits = rate / 30
        let packetsPerFrame = max(1, (frameBits / (1200 * 8)).rounded(.up))
        let responseTime = (roundTrip.milliseconds + max(100, feedbackSpacing.milliseconds)) / 1000
        return max(4000, frameBits / packetsPerFrame / responseTime)
    }
}
