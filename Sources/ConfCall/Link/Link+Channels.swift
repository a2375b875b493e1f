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
    private func channelOpened(_ label: String) -> ChannelOpening? {
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
    private func channelClosed(_ label: String?) -> Bool {
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

    /// The peer's `state`: which of its microphone and camera changed.
    func peerState(audioMuted audio: Bool, videoMuted video: Bool) -> (audio: Bool, video: Bool) {
        defer { (remoteAudioMuted, remoteVideoMuted) = (audio, video) }
        return (audio != remoteAudioMuted, video != remoteVideoMuted)
    }

    /// What the association said: its packets to the peer (through DTLS, to the outbox), and as
    /// events what the engine acts on. A listener's chat is dropped here (reported once). The
    /// association ended by the peer (SCTP ABORT or shutdown) ends the link, the same as its
    /// DTLS close_notify, whichever of the two is read first.
    func drainChannels() -> [Event] {
        guard let channels = dataChannels else { return [] }
        var events: [Event] = []
        while let output = channels.pollOutput() {
            switch output {
            case .packet(let packet):
                sendOverDTLS(packet)
            case .opened(let label):
                if let opening = channelOpened(label) { events.append(.channelOpened(opening)) }
            case .message(Self.controlLabel, let text):
                events.append(.control(text))
            case .message(Self.chatLabel, let text):
                // Listeners listen: their chat is not delivered (the room has no option to allow it).
                guard peer.role != .listener else {
                    refusedListenerChat += 1
                    if refusedListenerChat == 1 { events.append(.listenerChatIgnored) }
                    continue
                }
                events.append(.chat(text))
            case .message:
                break
            case .closed(label: nil):
                _ = channelClosed(nil)
                events.append(.ended(.closedByPeer))
                return events
            case .closed(label: let label?):
                if channelClosed(label), phase == .connected { events.append(.chatClosed) }
            }
        }
        return events
    }

    /// Closes the data channels and DTLS with their goodbyes to the outbox, or, not
    /// `tellingThePeer`, drops them without a word.
    func close(tellingThePeer: Bool) {
        if tellingThePeer, let channels = dataChannels {
            channels.close()
            while let output = channels.pollOutput() {
                if case .packet(let packet) = output { sendOverDTLS(packet) }
            }
        }
        dataChannels = nil
        if tellingThePeer { closeDTLS() }
    }
}
