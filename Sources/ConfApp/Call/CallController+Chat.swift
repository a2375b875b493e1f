import ConfCore
import ConfIO
import ConfSession
import ConfWire

/// Data channels on each link: chat, and conf's control channel that carries the mute state.
extension CallController {
    /// SCTP over the DTLS association; the offerer opens the "chat" channel (RFC 8832).
    func startDataChannels(_ link: PeerLink) {
        guard let port = link.sctpPort, let dtls = link.dtls else { return }
        let channels = DataChannelTransport(loop: loop, isDTLSClient: dtls.role == .client) { [weak self] packet in
            dtls.send(packet)
            self?.drainDTLS(link)
        }
        link.dataChannels = channels
        channels.onOpen = { [weak self] label in
            guard let self else { return }
            if label == Self.controlLabel, !link.controlOpen {
                link.controlOpen = true
                self.sendState(to: link)
            }
            guard label == Self.chatLabel, !link.chatOpen else { return }
            link.chatOpen = true
            for text in self.settings.say { self.say(text, to: link) }
            let held = self.heldChat
            self.heldChat = []
            for text in held { self.say(text, to: link) }
        }
        channels.onMessage = { [weak self] label, text in
            guard let self else { return }
            if label == Self.controlLabel { return self.control(text, from: link) }
            guard label == Self.chatLabel else { return }
            // Listeners listen: their chat is not delivered (the room has no option to allow it).
            if link.peer.role == .listener {
                link.refusedListenerChat += 1
                if link.refusedListenerChat == 1 { self.reportIgnoredListener(link, what: "chat") }
                return
            }
            self.reporter.emit(.object(["type": "chat", "from": .string(link.peer.id.rawValue), "name": .string(link.peer.name),
                                        "text": .string(text)]),
                               human: "\(self.reporter.style.bold(link.peer.name)): \(text)")
        }
        channels.onChannelClosed = { [weak self] label in
            guard let self, link.phase == .connected else { return }
            if label == Self.controlLabel { link.controlOpen = false }
            guard label == Self.chatLabel, link.chatOpen else { return }
            link.chatOpen = false  // `say` skips this peer from now on
            self.reporter.note(self.reporter.style.dim("\(link.peer.name) (\(link.peer.id)) closed the chat channel: your messages no longer reach them"))
        }
        // The peer ended the whole association (SCTP ABORT or shutdown): as if it left the link.
        channels.onAssociationClosed = { [weak self] in
            self?.disconnect(link, code: .left, reason: "left", restart: false)
        }
        channels.connect(remotePort: port)
        if link.isOfferer {
            channels.open(label: Self.chatLabel)
            channels.open(label: Self.controlLabel)
        }
    }

    /// Sends a chat message to every peer whose chat channel is open; returns how many.
    @discardableResult
    func say(_ text: String) -> Int {
        links.values.filter(\.chatOpen).reduce(0) { count, link in count + (say(text, to: link) ? 1 : 0) }
    }

    static let maxHeldChat = 100

    /// `say` typed on stdin: sent to every peer whose chat channel is open, or, with none open
    /// yet, held and sent to the first peer whose channel opens. False when the hold is full.
    func sayOrHold(_ text: String) -> Bool {
        if say(text) > 0 { return true }
        guard heldChat.count < Self.maxHeldChat else { return false }
        heldChat.append(text)
        reporter.note(reporter.style.dim("Nobody is connected yet: the message goes to the first peer who connects."))
        return true
    }

    @discardableResult
    private func say(_ text: String, to link: PeerLink) -> Bool {
        guard link.phase == .connected, link.dataChannels?.send(text: text, label: Self.chatLabel) == true else { return false }
        reporter.emit(.object(["type": "sent", "to": .string(link.peer.id.rawValue), "text": .string(text)]),
                      human: reporter.style.dim("you → \(link.peer.name): \(text)"))
        return true
    }

    // MARK: Mute

    func setAudioMuted(_ muted: Bool) {
        guard muted != audioMuted else { return }
        audioMuted = muted
        audio?.muted = muted
        reporter.emit(.object(["type": "muted", "audio": .bool(audioMuted), "video": .bool(videoMuted)]),
                      human: muted ? "Microphone muted: nothing is sent." : "Microphone on.")
        for link in links.values where link.controlOpen { sendState(to: link) }
    }

    /// Stops (or resumes) playing one participant here; they are not told.
    func setLocallyMuted(_ id: String, _ muted: Bool) -> Bool {
        guard let link = links[ParticipantID(id)] else { return false }
        link.locallyMuted = muted
        reporter.emit(.object(["type": "peer-muted-locally", "peer": .string(id), "muted": .bool(muted)]),
                      human: muted ? "\(link.peer.name) is muted here." : "\(link.peer.name) plays again.")
        return true
    }

    func sendState(to link: PeerLink) {
        let state = JSONValue.object(["type": "state", "audio_muted": .bool(audioMuted), "video_muted": .bool(videoMuted)])
        link.dataChannels?.send(text: state.serialized, label: Self.controlLabel)
    }

    /// A control message from a peer: malformed ones are ignored.
    func control(_ text: String, from link: PeerLink) {
        guard let message = try? JSONValue.parse(text, maxDepth: 4), message["type"] == "state" else { return }
        let audio = message["audio_muted"]?.boolValue ?? false, video = message["video_muted"]?.boolValue ?? false
        guard audio != link.remoteAudioMuted || video != link.remoteVideoMuted else { return }
        link.remoteAudioMuted = audio
        link.remoteVideoMuted = video
        reporter.emit(.object(["type": "peer-muted", "peer": .string(link.peer.id.rawValue), "audio": .bool(audio), "video": .bool(video)]),
                      human: "\(link.peer.name) \(audio ? "muted" : "unmuted") their microphone")
    }
}
