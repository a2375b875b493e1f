import ConfCore
import ConfSession
import ConfWire

/// The link's data channels over its DTLS association (SCTP, RFC 8831): chat, and conf's control
/// channel that carries the mute state and, for a peer without the DTLS exporter, the secret for
/// the words. The offerer opens both (RFC 8832). What the link knows of them is its own: which
/// are open, the chat waiting for its channel, the peer's last state; what the messages mean for
/// the call is the engine's.
extension Link {
    static let chatLabel = "chat"
    /// conf's own state messages between participants (mute), JSON text.
    static let controlLabel = "conf-control"

    /// What an opened channel asks of the engine.
    enum ChannelOpening: Equatable {
        /// The control channel: send our state (and the secret for the words).
        case control
        /// The chat channel: what waited for it, in order.
        case chat(waiting: [String])
    }

    /// SCTP over the DTLS association, as DTLS comes up; the offerer opens the channels.
    func startChannels(with factory: any DataChannelFactory) {
        guard let port = negotiated?.sctpPort, let dtls else { return }
        let channels = factory.makeAssociation(isDTLSClient: dtls.role == .client)
        dataChannels = channels
        channels.connect(remotePort: port)
        if controlling {
            channels.open(label: Self.chatLabel)
            channels.open(label: Self.controlLabel)
        }
    }

    /// The channel `label` opened; nil when it is no channel of ours or was open already.
    func channelOpened(_ label: String) -> ChannelOpening? {
        if label == Self.controlLabel, !controlOpen {
            controlOpen = true
            return .control
        }
        guard label == Self.chatLabel, !chatOpen else { return nil }
        chatOpen = true
        defer { chatWaiting = [] }
        return .chat(waiting: chatWaiting)
    }

    /// The peer reset one channel (RFC 8831 section 6.7), or ended the association (`label`
    /// nil): true when the chat channel was open and is no longer.
    func channelClosed(_ label: String?) -> Bool {
        if label == nil || label == Self.controlLabel { controlOpen = false }
        guard label == nil || label == Self.chatLabel, chatOpen else { return false }
        chatOpen = false
        return true
    }

    /// Chat text to the peer, if the link is up and its chat channel takes it.
    func sendChat(_ text: String) -> Bool {
        phase == .connected && dataChannels?.send(text: text, label: Self.chatLabel) == true
    }

    /// Chat said before the chat channel opened, sent when it does; false when too much waits.
    func holdChat(_ text: String, limit: Int) -> Bool {
        guard chatWaiting.count < limit else { return false }
        chatWaiting.append(text)
        return true
    }

    /// A control message to the peer.
    func sendControl(_ message: JSONValue) {
        _ = dataChannels?.send(text: message.serialized, label: Self.controlLabel)
    }

    /// A chat message from a listener, refused: true for the first (reported once).
    func refuseListenerChat() -> Bool {
        refusedListenerChat += 1
        return refusedListenerChat == 1
    }

    /// The peer's `state`: which of its microphone and camera changed.
    func peerState(audioMuted audio: Bool, videoMuted video: Bool) -> (audio: Bool, video: Bool) {
        defer { (remoteAudioMuted, remoteVideoMuted) = (audio, video) }
        return (audio != remoteAudioMuted, video != remoteVideoMuted)
    }
}
