/// The data channels of one link (SCTP over the link's DTLS, RFC 8831/8832), as the engine drives
/// them: SCTP packets in and out, text messages by channel label. The real association is
/// usrsctp's (a driver in ConfDriver); tests may use a simple stand-in.
///
/// An association may also produce output outside of these calls (SCTP's own retransmission
/// timers): its owner then calls `CallEngine.dataChannelsHaveOutput()` and drains the engine
/// (`pollOutput`); the engine asks its associations for output only after one of its own calls
/// into them or that one.
public protocol DataChannelAssociation: AnyObject {
    func connect(remotePort: UInt16)
    /// An SCTP packet that came out of DTLS.
    func receive(_ packet: [UInt8])
    /// Opens a channel (the offerer opens "chat" and "conf-control", RFC 8832 DCEP).
    func open(label: String)
    /// False when the channel is not open.
    func send(text: String, label: String) -> Bool
    func close()
    func pollOutput() -> DataChannelOutput?
}

public enum DataChannelOutput: Equatable, Sendable {
    /// An SCTP packet to send through DTLS.
    case packet([UInt8])
    case opened(label: String)
    case message(label: String, text: String)
    /// The peer closed a channel (stream reset), or the whole association ended (label nil).
    case closed(label: String?)
}

/// Makes each link's association once DTLS is up.
public protocol DataChannelFactory {
    func makeAssociation(isDTLSClient: Bool) -> any DataChannelAssociation
}
