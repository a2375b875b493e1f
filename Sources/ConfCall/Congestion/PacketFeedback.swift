import ConfWire

/// One packet's fate as a transport-wide feedback message reports it: the unwrapped transport-wide
/// sequence number and when the receiver got it, on the receiver's clock, or nil when the receiver
/// reports it lost (ConfWire reads it off the wire, draft-holmer-rmcat-transport-wide-cc-extensions-01
/// section 3.1). The estimator's input is that same value.
///
/// Only differences between arrivals are used, so the receiver's clock may have any offset from
/// ours; it must only run at the same speed.
public typealias PacketFeedback = TransportFeedback.Arrival
