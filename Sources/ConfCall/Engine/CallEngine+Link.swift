import ConfCore
import ConfCrypto
import ConfSession
import ConfWire

/// Each link's transport, handshake and lifetime: ICE as reported, DTLS driven, packets
/// classified (RFC 7983), `peer-connected` / `peer-disconnected`, restarts.
extension CallEngine {
    /// The links in one fixed order, by participant id. Walk these, not `links.values`, wherever
    /// the order can matter (whose packets the pacer takes first, which of equal links is the
    /// least): Swift seeds each dictionary's order apart, and a simulated call must replay from
    /// its seed.
    var linksInOrder: [Link] { links.sorted { $0.id < $1.id } }

    /// Hands the link one input and acts on what it did: its datagrams, frames and audio pass
    /// on first, then its events in order. A link that came up gets its data channels before
    /// what DTLS held behind the handshake is drained.
    func handle(_ input: Link.Input, on link: Link, now: Instant) {
        var events = link.handle(input, now: now)
        while true {
            flush(link)
            for event in events {
                switch event {
                case .connected:
                    connected(link, now: now)
                    startDataChannels(link)
                case .ended(let reason):
                    // What the peer said last (a `bye`, a chat line) may have come with its
                    // close_notify, still in the association: read before the link goes.
                    for said in link.drainChannels() {
                        if case .control(let text) = said { control(text, from: link) }
                        if case .chat(let text) = said { outputs.append(.event(.chat(from: link.peer, text: text))) }
                    }
                    disconnect(link, reason, now: now)
                case .dataChannelInput:
                    dataChannelOutputMayWait = true
                case .pictureLost:
                    if keyFrameAnswersPictureLoss(on: link, now: now) { outputs.append(keyFrameRequest(for: link)) }
                case .listenerMediaIgnored:
                    reportIgnoredListener(link, what: .media)
                case .unplayableAudio(let milliseconds):
                    outputs.append(.note(.unplayableAudio(link.peer, milliseconds: milliseconds)))
                case .channelOpened(let opening): opened(opening, on: link)
                case .chat(let text): outputs.append(.event(.chat(from: link.peer, text: text)))
                case .control(let text): control(text, from: link)
                case .listenerChatIgnored: reportIgnoredListener(link, what: .chat)
                case .chatClosed: outputs.append(.note(.chatClosed(link.peer)))
                }
            }
            guard events.last == .connected, link.phase == .connected else { return }
            events = link.handle(.channelsStarted, now: now)
        }
    }

    /// DTLS is up: the link is announced at once, with the round trip the handshake measured. The
    /// first RTCP round trip follows (sender reports every 100 ms until one is answered, for
    /// `Link.firstRoundTripWait`), and `link-stats` carries it: waiting for it held `peer-connected`
    /// back ~500 ms behind peers that send no RTCP at first (browsers, some WebRTC stacks).
    private func connected(_ link: Link, now: Instant) {
        everConnected = true
        connectDeadline = nil
        peerSlots[link.id]?.connected()
        link.sendFirstReport(now: now)
        flush(link)
        if !awaitsPeerSASNonce(link) { announce(link, now: now) }
        startVideoAtKeyFrame(on: link, now: now)
    }

    /// A new link's video starts at a key frame, as libwebrtc's does: a receiver cannot decode the
    /// deltas before one, and not every receiver asks (GStreamer's webrtcbin sent no PLI and
    /// decoded none of conf's video); conf's own asks, a round trip later. Before the first frame
    /// none is asked (the encoder starts with one).
    ///
    /// One request serves every link that waits, and while other links are still being set up
    /// (a room joined at once) it waits for them too, at most `meshFormingWait`. One encoder
    /// serves every link, so a key frame for one goes to all: links that come up a few hundred ms
    /// apart would otherwise make one each, several frames' worth apiece, into every link at once,
    /// at the start of the call, where a capped uplink has the least room.
    private func startVideoAtKeyFrame(on link: Link, now: Instant) {
        guard configuration.sendsVideo, !videoMuted, !link.peerHidesOurVideo, link.negotiated?.video?.sends == true else { return }
        link.forwarding.waitForKeyFrame()
        guard outgoingVideo.hasStarted, !outgoingVideo.newLinkKeyFrameAsked else { return }
        if outgoingVideo.newLinkKeyFrameDue == nil { outgoingVideo.newLinkKeyFrameDue = now + Self.meshFormingWait }
        askNewLinkKeyFrameWhenDue(now: now)
    }

    static let meshFormingWait: Duration = .milliseconds(500)
    /// A link still negotiating this long after the first try to reach its peer is not forming
    /// with the others (a peer we cannot reach is tried again and again): new links do not wait
    /// for it.
    static let meshFormingWindow: Duration = .seconds(3)

    /// Asks the key frame that links which came up wait for, once no other link is being set up
    /// or `OutgoingVideo.newLinkKeyFrameDue` has come.
    func askNewLinkKeyFrameWhenDue(now: Instant) {
        guard let due = outgoingVideo.newLinkKeyFrameDue else { return }
        guard configuration.sendsVideo, !videoMuted else {
            outgoingVideo.newLinkKeyFrameDue = nil  // the camera went off while waiting; turning it on asks anew
            return
        }
        let forming = peerSlots.values.contains { slot in
            guard slot.link?.phase == .negotiating, let since = slot.triedSince else { return false }
            return now.since(since) < Self.meshFormingWindow
        }
        guard !forming || now >= due else { return }
        outgoingVideo.askedNewLinkKeyFrame()
        outputs.append(.keyFrameRequested)
    }

    /// How long `peer-connected` waits, after DTLS is up, for the secret a peer committed to (it
    /// comes over the control channel, a few round trips later).
    static let sasNonceWait: Duration = .seconds(3)

    /// The link is up and its words wait for the peer's secret.
    func awaitsPeerSASNonce(_ link: Link) -> Bool {
        guard !link.announced, let negotiated = link.negotiated else { return false }
        return !negotiated.peerExporterSAS && negotiated.peerSASCommitment != nil && link.peerSASNonce == nil
    }

    /// The peer revealed the secret it committed to (the control channel's `sas-nonce`): kept
    /// when it matches, and the link announced with its words if it was waiting for them.
    func peerRevealedSASNonce(_ nonce: [UInt8], on link: Link, now: Instant) {
        guard link.peerSASNonce == nil, let commitment = link.negotiated?.peerSASCommitment else { return }
        if ShortAuthenticationString.commitment(to: nonce) == commitment {
            link.peerSASNonce = nonce
        } else {
            outputs.append(.note(.secretDoesNotMatch(link.peer)))
        }
        if link.phase == .connected, !link.announced { announce(link, now: now) }
    }

    /// A link whose peer's secret did not come within `sasNonceWait` is announced without words.
    func announceIfSASNonceLate(_ link: Link, now: Instant) {
        guard link.phase == .connected, awaitsPeerSASNonce(link), let up = link.dtlsConnectedAt, now >= up + Self.sasNonceWait else { return }
        outputs.append(.note(.secretWithheld(link.peer)))
        announce(link, now: now)
    }

    private func announce(_ link: Link, now: Instant) {
        link.announced = true
        // Karn's rule: after a resent flight the answer cannot be matched to the copy it answers.
        let rtt = link.dtls?.retransmitted == true ? nil : link.dtlsConnectedAt.flatMap { link.handshakeRTT(connectedAt: $0) }
        let pair = link.selectedPair
        outputs.append(.event(.peerConnected(.init(
            peer: link.peer, path: pair?.path ?? "unknown",
            local: pair?.localEndpoint ?? "", remote: pair?.remoteEndpoint ?? "",
            roundTrip: rtt.map { .nanoseconds(Int64($0 * 1e6)) }, sas: sasWords(link),
            srtp: link.srtpProfile.map { String($0.rawValue.dropFirst("SRTP_".count)) } ?? "",
            iceConnected: link.iceConnectedAt?.since(link.openedAt), dtlsConnected: link.dtlsConnectedAt?.since(link.openedAt),
            announced: now.since(link.openedAt)))))
    }

    /// The words to read aloud: from the DTLS session with a peer that derives them so (conf);
    /// else from both certificates' SHA-256 fingerprints and both ends' revealed secrets, which a
    /// browser's page computes too; none with a peer that can do neither (webrtcbin).
    private func sasWords(_ link: Link) -> [String] {
        guard let negotiated = link.negotiated else { return [] }
        if negotiated.peerExporterSAS { return link.dtls?.sasWords ?? [] }
        guard let peerNonce = link.peerSASNonce, security.fingerprint.hashFunction == .sha256,
              let remote = negotiated.remoteFingerprints.first(where: { $0.hashFunction == .sha256 }) else { return [] }
        return ShortAuthenticationString.words(fingerprint: security.fingerprint.bytes, remote.bytes,
                                               offererNonce: link.controlling ? link.sasNonce : peerNonce,
                                               answererNonce: link.controlling ? peerNonce : link.sasNonce)
    }

    /// The link to a peer failed or ended: reported, its agent closed at once, and set up again
    /// later when it can be (the side that offered restarts; the other answers the new offer).
    func disconnect(_ link: Link, _ reason: DisconnectReason, now: Instant, restart: Bool = true, tellingThePeer: Bool = true) {
        guard link.phase != .disconnected else { return }
        if case .noPath(_, let cause) = reason { sawNoPath = cause }
        report(disconnected: link, reason)
        link.end()
        teardown(link, tellingThePeer: tellingThePeer)
        let id = link.id
        guard restart, roster[id] != nil, let mesh else { return }
        if mesh.isOfferer(to: id) {
            guard peerSlots[id, default: PeerSlot()].scheduleRestart(after: Self.restartDelay, limit: Self.maxRestarts, now: now) else {
                outputs.append(.note(.gaveUp(link.peer, attempts: peerSlots[id]?.restartsInARow ?? 0)))
                return
            }
        } else {
            // The answerer waits for the peer's next offer, which starts a fresh link.
            mesh.abandon(id)
        }
    }

    /// Restarts that are due: the link to the peer is set up again from a new offer.
    func runRestarts(now: Instant) {
        func isDue(_ slot: PeerSlot) -> Bool { slot.restartDue.map { $0 <= now } ?? false }
        guard peerSlots.values.contains(where: isDue) else { return }
        for (id, slot) in peerSlots.sorted(by: { $0.key < $1.key }) where isDue(slot) {  // in id order, as `linksInOrder`
            peerSlots[id]?.restartDue = nil
            guard roster[id] != nil, peerSlots[id]?.link?.phase == .disconnected else { continue }
            mesh?.restart(id)
            drainMesh(now: now)
        }
    }

    func report(disconnected link: Link, _ reason: DisconnectReason) {
        guard !isLeaving else { return }
        outputs.append(.event(.peerDisconnected(.init(peer: link.peer, reason: reason, wasConnected: link.phase == .connected))))
    }

    /// Once per link and kind: a listener sent what its role does not allow; it is dropped.
    func reportIgnoredListener(_ link: Link, what: CallEvent.ListenerTraffic) {
        outputs.append(.event(.listenerIgnored(link.peer, what: what)))
    }

    /// Closes what the link holds: data channels, DTLS (its close_notify goes out), the agent.
    /// With `tellingThePeer` false nothing goes out: the peer learns another way (a `restart`
    /// signal), and a close_notify, faster than the rendezvous's relay, would tell it we left.
    func teardown(_ link: Link, tellingThePeer: Bool = true) {
        link.close(tellingThePeer: tellingThePeer)
        flush(link)
        outputs.append(.closeIce(link.id))
    }

    /// Passes on what the link queued to send, in order, among the engine's outputs.
    func flush(_ link: Link) {
        link.passOutbox(to: &outputs)
    }

    func send(_ report: RTCPPacket, on link: Link) {
        link.sendRTCP(report)
        flush(link)
    }

    /// Queues plain RTP packets on the link's pacer; audio leaves at once.
    func enqueue(_ packets: [RTPPacket], _ kind: PacedPacket.Kind, on link: Link, transportSequenceID: UInt8?, now: Instant) {
        link.enqueue(packets, kind, transportSequenceID: transportSequenceID, now: now)
        flush(link)
    }

    /// What the link's pacer lets out now.
    func pumpPacer(_ link: Link, now: Instant) {
        link.pumpPacer(now: now)
        flush(link)
    }
}
