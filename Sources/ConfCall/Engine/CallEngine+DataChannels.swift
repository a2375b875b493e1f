import ConfCore
import ConfCrypto
import ConfSession
import ConfWire

/// Data channels on each link: chat, and conf's control channel that carries the mute state.
extension CallEngine {
    /// SCTP over the DTLS association (`Link.startChannels`).
    func startDataChannels(_ link: Link) {
        guard let factory = dataChannelFactory else { return }
        link.startChannels(with: factory)
        dataChannelOutputMayWait = true
    }

    /// usrsctp queued output of its own accord (a retransmission timer), or from inside a call
    /// the engine made into it: `pollOutput` takes it. Safe to call from such a callback: it
    /// only marks the flag.
    public func dataChannelsHaveOutput() { dataChannelOutputMayWait = true }

    /// Every link's data channel output, when some may wait: the associations are asked only
    /// after the engine gave them work or the driver said they have output (the flag), not on
    /// every `pollOutput`; again while what they said gave them more (a channel opened, our
    /// state sent on it).
    func drainDataChannelsIfWaiting() {
        while dataChannelOutputMayWait {
            dataChannelOutputMayWait = false
            for link in linksInOrder { handle(.channelsHaveOutput, on: link, now: now) }
        }
    }

    /// The control channel opened: our state goes (and the secret for the words); the chat
    /// channel: `--say`'s messages, then what waited for it on this link and for a first peer.
    func opened(_ opening: Link.ChannelOpening, on link: Link) {
        switch opening {
        case .control:
            sendState(to: link)
            revealSASNonce(to: link)
        case .chat(let waiting):
            for text in configuration.say { say(text, to: link) }
            let held = heldChat
            heldChat = []
            for text in waiting + held { say(text, to: link) }
        }
    }

    // MARK: Commands

    /// Sends a chat message to every peer in the room: at once where its chat channel is open,
    /// else when it opens (a link still coming up: in a mesh the links open one by one, and a
    /// message said between two would miss the later). With nobody here yet it is held for the
    /// first peer whose channel opens.
    func say(_ text: String) -> Refusal? {
        let present = linksInOrder.filter { $0.phase != .disconnected }
        var sent = false, waits = false
        for link in present {
            if link.chatOpen {
                sent = say(text, to: link) || sent
            } else if link.holdChat(text, limit: Self.maxHeldChat) {
                waits = true
            }
        }
        if waits && !sent { outputs.append(.note(.chatWaitsForLinks)) }
        if !present.isEmpty { return sent || waits ? nil : .chatQueueFull }
        guard heldChat.count < Self.maxHeldChat else { return .chatQueueFull }
        heldChat.append(text)
        outputs.append(.note(.chatWaitsForFirstPeer))
        return nil
    }

    @discardableResult
    private func say(_ text: String, to link: Link) -> Bool {
        dataChannelOutputMayWait = true
        guard link.sendChat(text) else { return false }
        outputs.append(.event(.sent(to: link.peer, text: text)))
        return true
    }

    func setAudioMuted(_ muted: Bool) {
        guard muted != audioMuted else { return }
        audioMuted = muted
        mutedTalking = TalkingDetector()
        outputs.append(.event(.muted(audio: audioMuted, video: videoMuted)))
        for link in linksInOrder where link.controlOpen { sendState(to: link) }
    }

    /// Stops (or resumes) playing one participant here; they are not told.
    func setLocallyMuted(_ id: ParticipantID, _ muted: Bool) -> Refusal? {
        guard let link = peerSlots[id]?.link else { return .notConnected(id) }
        link.locallyMuted = muted
        outputs.append(.event(.peerMutedLocally(link.peer, muted: muted)))
        return nil
    }

    /// Our state, as the peer should know it: `wants_video` false while we hide its video.
    func sendState(to link: Link) {
        let state = JSONValue.object(["type": "state", "audio_muted": .bool(audioMuted), "video_muted": .bool(videoMuted),
                                      "wants_video": .bool(!link.hidesPeerVideo)])
        link.sendControl(state)
        dataChannelOutputMayWait = true
    }

    /// Our secret for the words, to a peer without the DTLS exporter once the link is up
    /// (`{"type":"sas-nonce","nonce":HEX}`); conf peers derive their words from DTLS instead.
    private func revealSASNonce(to link: Link) {
        guard link.negotiated?.peerExporterSAS == false else { return }
        let message = JSONValue.object(["type": "sas-nonce", "nonce": .string(Hex.string(link.sasNonce))])
        link.sendControl(message)
        dataChannelOutputMayWait = true
    }

    /// A control message from a peer: malformed ones are ignored; a field left out keeps its
    /// default (a conf that knows no `wants_video` wants video).
    func control(_ text: String, from link: Link) {
        guard let message = try? JSONValue.parse(text, maxDepth: 4) else { return }
        if message["type"] == "sas-nonce" {
            guard case .string(let hex)? = message["nonce"], let nonce = Hex.bytes(hex, count: ShortAuthenticationString.nonceLength) else { return }
            return peerRevealedSASNonce(nonce, on: link, now: now)
        }
        if message["type"] == "bye" { return outputs.append(.peerSaidGoodbye(link.id)) }
        guard message["type"] == "state" else { return }
        let audio = message["audio_muted"]?.boolValue ?? false, video = message["video_muted"]?.boolValue ?? false
        let changed = link.peerState(audioMuted: audio, videoMuted: video)
        if changed.audio { outputs.append(.event(.peerMuted(link.peer, audio: audio, video: video))) }
        if changed.video { outputs.append(.event(video ? .peerVideoMuted(link.peer) : .peerVideoUnmuted(link.peer))) }
        peerWantsVideo(message["wants_video"]?.boolValue ?? true, on: link)
    }
}
