import ConfCore

/// One packet's fate as a transport-wide feedback message reports it (the wire format,
/// draft-holmer-rmcat-transport-wide-cc-extensions-01 section 3.1, is parsed elsewhere and
/// mapped onto this): the unwrapped transport-wide sequence number and when the receiver got it,
/// on the receiver's clock, or nil when the receiver reports it lost.
///
/// Only differences between arrivals are used, so the receiver's clock may have any offset from
/// ours; it must only run at the same speed.
public struct PacketFeedback: Sendable, Equatable {
    public var sequence: Int64
    public var arrival: Instant?

    public init(sequence: Int64, arrival: Instant?) {
        self.sequence = sequence
        self.arrival = arrival
    }
}
