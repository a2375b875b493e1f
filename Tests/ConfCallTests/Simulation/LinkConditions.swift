/// How one direction of a simulated link treats the datagrams sent over it.
///
/// A datagram goes through these stages in order (see `SimulatedNetwork.send`):
/// partition → duplication → the sender's shared uplink, if it has one (`SimulatedNetwork.setUplink`) →
/// bandwidth cap with its queue → random and bursty loss → delay, jitter, reordering.
/// The defaults are a perfect link: no delay, nothing lost, no cap. Out-of-range settings are clamped:
/// a negative delay is none, a probability above 1 is certain.
struct LinkConditions: Equatable, Sendable {
    /// One-way propagation delay, added after serialisation.
    var delay: Duration = .zero
    /// Each datagram's delay is `delay` plus a uniform draw from `-jitter...jitter`, never below zero.
    /// Datagrams sent closer together than the jitter's spread overtake one another.
    var jitter: Duration = .zero
    /// The probability that a datagram is held back `reorderDelay` beyond its usual delay, so the
    /// datagrams sent just after it arrive first.
    var reorder: Double = 0
    var reorderDelay: Duration = .milliseconds(20)
    /// The probability that a datagram is lost, independently of every other one.
    var loss: Double = 0
    /// Loss that comes in bursts; applies on top of `loss`.
    var burstLoss: BurstLoss? = nil
    /// The probability that a datagram arrives twice. The copy goes through the queue, loss and delay
    /// on its own.
    var duplication: Double = 0
    /// The link's rate in bits per second; nil for no cap. Each datagram takes `bytes * 8 / rate` to
    /// serialise, one after another.
    var bandwidth: Int? = nil
    /// With a cap, the most bytes waiting to be serialised (drop-tail): a datagram that would make
    /// the backlog exceed it is dropped.
    var queueLimit: Int = 64 * 1024
    /// With a cap, the bytes that may leave at once after a quiet spell, as `tc ... tbf burst` lets
    /// them (a token bucket this deep, filling at the rate); 0 serialises every datagram at the rate.
    var burst: Int = 0

    /// A receiver that reads nothing for `length` out of every `every` (a CPU starved by other
    /// work, as an emulated machine's): what would arrive meanwhile arrives when the stall ends,
    /// in order. Applied after delay and jitter.
    var stalls: Stalls? = nil

    static let perfect = LinkConditions()

    struct Stalls: Equatable, Sendable {
        var every: Duration
        var length: Duration
    }

    /// A Gilbert-Elliott channel: two states, a transition drawn for every datagram.
    /// With `lossInBad` 1 and `lossInGood` 0, bursts last `1 / badToGood` datagrams on average and
    /// the long-run loss rate is `goodToBad / (goodToBad + badToGood)`.
    struct BurstLoss: Equatable, Sendable {
        var goodToBad: Double
        var badToGood: Double
        var lossInBad: Double = 1
        var lossInGood: Double = 0
    }
}
