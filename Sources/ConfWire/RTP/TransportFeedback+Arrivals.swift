import ConfCore

extension TransportFeedback {
    /// One packet's fate, with its transport sequence number unwrapped and its arrival on the
    /// receiver's clock.
    public struct Arrival: Equatable, Sendable {
        public var sequence: Int64
        /// Nil when the packet was not received.
        public var arrival: Instant?

        public init(sequence: Int64, arrival: Instant?) {
            self.sequence = sequence
            self.arrival = arrival
        }
    }

    /// `baseSequence` unwrapped against `latest`, a number the sender has sent (the last one, say):
    /// the 64-bit number within half the 16-bit space of it whose low 16 bits are the base.
    public func unwrappedBase(near latest: Int64) -> Int64 {
        latest &+ Int64(SequenceNumber(extended: UInt64(bitPattern: latest)).distance(to: baseSequence))
    }

    /// `packets` numbered `unwrappedBase`, `unwrappedBase + 1`, ... (the sender unwraps
    /// `baseSequence` against the numbers it sent), each received one with its arrival counted
    /// from `reference`, the instant the caller gives this feedback's reference time.
    ///
    /// The arrivals are on the receiver's clock, which the sender does not know: only differences
    /// between them mean anything. Within one feedback any `reference` will do; to compare
    /// arrivals across feedback messages, take each one's reference from one
    /// `ReferenceTimeUnwrapper`. Negative deltas can put a packet before `reference`: an arrival
    /// is never before `Instant.zero`.
    public func arrivals(unwrappedBase: Int64, reference: Instant) -> [Arrival] {
        var offset: Int64 = 0  // nanoseconds from the reference
        var sequence = unwrappedBase
        var arrivals: [Arrival] = []
        arrivals.reserveCapacity(packets.count)
        for result in packets {
            if case .received(let delta) = result {
                offset &+= Int64(delta) * Self.deltaUnitNanoseconds
                arrivals.append(Arrival(sequence: sequence, arrival: reference + .nanoseconds(offset)))
            } else {
                arrivals.append(Arrival(sequence: sequence, arrival: nil))
            }
            sequence &+= 1
        }
        return arrivals
    }
}
