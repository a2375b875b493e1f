import ConfCore

/// Puts the reference times of the transport feedback one receiver sends on one timeline, for
/// the sender. The 24-bit field (units of 64 ms) wraps every 2^24 × 64 ms, about 12.4 days, and
/// starts wherever the receiver's clock is; each one is unwrapped against the one before,
/// assuming the two are less than half that apart (as `SequenceUnwrapper` does for RTP).
public struct ReferenceTimeUnwrapper: Sendable {
    /// The last reference time, unwrapped, in units of 64 ms.
    private var last: Int64?

    public init() {}

    /// The instant of `feedback`'s reference time on this unwrapper's timeline. The first one is
    /// placed 2^24 units (about 12.4 days) after `Instant.zero`, so that arrivals before it, and
    /// reference times that step back (feedback reordered on the way), are still instants.
    public mutating func reference(of feedback: TransportFeedback) -> Instant {
        let value = Int64(feedback.referenceTime)
        let unwrapped = last.map { $0 + Int64(TransportFeedback.referenceTime(wrapping: value - $0)) } ?? value + (1 << 24)
        last = unwrapped
        return Instant(nanoseconds: UInt64(max(0, unwrapped)) * UInt64(TransportFeedback.referenceTimeUnitNanoseconds))
    }

    /// `feedback.arrivals(unwrappedBase:reference:)` with the reference from this timeline, so
    /// that arrivals from successive feedback messages can be compared.
    public mutating func arrivals(of feedback: TransportFeedback, unwrappedBase: Int64) -> [TransportFeedback.Arrival] {
        feedback.arrivals(unwrappedBase: unwrappedBase, reference: reference(of: feedback))
    }
}
