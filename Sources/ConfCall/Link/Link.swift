import ConfCore
import ConfCrypto
import ConfSession
import ConfWire

/// The link to one peer: ICE as reported by the driver's agent, then DTLS over it (driven here,
/// Link+Transport), then SRTP and the data channels, and the state of its streams, congestion
/// controller and video forwarding. The engine routes inputs to it and keeps what spans links.
///
///     negotiating ──ICE ready + DTLS done + fingerprint ok──▶ connected ──silence / ICE failed──▶ disconnected
///          └─────────── DTLS failure / ICE failed / connect timeout ───────────────────────────▶ disconnected
///
/// Its one way in is `handle(_:now:)` (Link+Input); what it sends waits in `outbox`. It becomes
/// connected by itself, when DTLS keys SRTP; it ends when the engine says (`end`), which reports
/// it first. A restart makes a new `Link`; a disconnected one is never used again. What
/// outlives it is the peer's `PeerSlot`.
final class Link {
    enum Phase: Equatable { case negotiating, connected, disconnected }

    let peer: Participant
    let credentials: IceCredentials
    let controlling: Bool
    let openedAt: Instant
    let audioSSRC: SSRC
    let videoSSRC: SSRC
    /// Moves only by `becameConnected` (from the link's transport) and `end`, never back.
    private(set) var phase = Phase.negotiating
    /// The driver made this link's ICE agent (`CallEngine.Input.iceStarted`); until then the
    /// link's signals and gathering wait here (`holdUntilTheAgentIsUp`).
    private(set) var agentStarted = false
    private var waitingForAgent: [CallEngine.Output] = []

    /// Keeps `output` until the driver has made the link's agent; false once it has (send it).
    func holdUntilTheAgentIsUp(_ output: CallEngine.Output) -> Bool {
        guard !agentStarted else { return false }
        waitingForAgent.append(output)
        return true
    }

    /// The agent is up: what waited for it, in order.
    func agentIsUp() -> [CallEngine.Output] {
        agentStarted = true
        defer { waitingForAgent = [] }
        return waitingForAgent
    }

    /// No agent could be made: what waited for it is dropped.
    func agentIsUnavailable() { waitingForAgent = [] }

    // Set up as negotiation and the handshake go on.
    var negotiated: NegotiatedLink? {
        didSet {
            negotiatesTransportFeedback = negotiated?.audio?.transportFeedback == true || negotiated?.video?.transportFeedback == true
            sendsAudio = negotiated?.audio?.sends == true
            audioPayloadType = negotiated?.audio?.payloadType
        }
    }
    // Asked of `negotiated` for every packet and deadline, and kept apart: reading through an
    // optional struct in a class copies the struct (its strings and candidate list) each time.
    /// Both sides listed transport-cc for a media section.
    private(set) var negotiatesTransportFeedback = false
    /// The audio section lets us send.
    private(set) var sendsAudio = false
    private(set) var audioPayloadType: PayloadType?
    var dtls: (any DTLSConnection)?
    /// What the call's configuration says of every link, fixed for its life.
    struct Settings {
        /// DTLS and SRTP are made through it.
        let security: any LinkSecurity
        /// Whether the link runs congestion control (`Configuration.congestionControl`).
        var congestionControl = true
        var receivesAudio = true
        var receivesVideo = true
        /// How long a link has to come up (`Configuration.connectTimeout`).
        var connectTimeout: Duration = .seconds(15)
    }
    let settings: Settings
    var congestionControl: Bool { settings.congestionControl }
    /// What the link queued: datagrams to the peer, frames and audio for the driver; the engine
    /// passes them on at once (`passOutbox`, `CallEngine.flush`), in order among its outputs.
    var outbox: [CallEngine.Output] = []
    var srtp: (any RTPProtector)?
    /// What SRTP adds to each RTP packet on this link, for the pacer's sizes (`PacedPacket`).
    var srtpTagBytes: Int { srtp?.rtpOverhead ?? PacedPacket.defaultSRTPTagBytes }
    /// The profile DTLS agreed (reported in `peer-connected`).
    var srtpProfile: SRTPProfile?
    var dataChannels: (any DataChannelAssociation)?
    var selectedPair: CandidatePair?
    var iceConnected = false
    /// The candidates each side gave for this link (at most `NoPathCause.keptCandidates` each):
    /// what a `no-path` names its cause from.
    var localCandidates: [IceCandidate] = []
    var remoteCandidates: [IceCandidate] = []
    var noPathCause: NoPathCause { .diagnose(local: localCandidates, remote: remoteCandidates) }

    func noteCandidate(_ candidate: IceCandidate, local: Bool) {
        if local {
            if localCandidates.count < NoPathCause.keptCandidates { localCandidates.append(candidate) }
        } else if remoteCandidates.count < NoPathCause.keptCandidates {
            remoteCandidates.append(candidate)
        }
    }
    /// When the peer's offer or answer was taken; whether any DTLS record came from the peer
    /// (CallEngine+Stall).
    var negotiatedAt: Instant?
    var heardDTLS = false

    // The set-up breakdown in `peer-connected`.
    var iceConnectedAt: Instant?
    var dtlsConnectedAt: Instant?
    /// When the first DTLS flight went out (client) or came in (server).
    var dtlsStartedAt: Instant?
    /// When our last handshake datagram went out, before DTLS connected (see `handshakeRTT`).
    var lastHandshakeFlightAt: Instant?

    // Liveness (RTCP both ways).
    var lastHeard: Instant
    /// Whether an SRTP or SRTCP packet from the peer has passed authentication yet.
    var heardSRTP = false
    var lastReportSent: Instant = .zero
    var meter: RoundTripMeter

    // Data channels and what the peer says over them.
    var chatOpen = false
    /// Chat said while this link was coming up, sent when its channel opens (at most `CallEngine.maxHeldChat`).
    var chatWaiting: [String] = []
    var controlOpen = false
    var remoteAudioMuted = false
    var remoteVideoMuted = false
    /// We asked the peer not to send its video (`hide`); the peer asked the same of us.
    var hidesPeerVideo = false
    var peerHidesOurVideo = false
    /// Muted here only (mute-peer): its audio comes out marked muted.
    var locallyMuted = false
    var talking = TalkingDetector()
    /// The last level played from this peer (dB below full scale).
    var level: UInt8?

    // Media.
    var audioOut: OutboundRTPStream
    /// One-frame Opus packets, or 60 ms ones while the link is too weak for video.
    var audioPackets = AudioPacketGatherer()
    /// Keeps the last 512 packets for NACKs.
    var videoOut: OutboundRTPStream
    var audioIn: InboundAudioStream?
    /// When the next 20 ms of the peer's audio is due for playout (from its first packet).
    var audioPlayoutAt: Instant?
    /// A late playout tick found nothing to play and waits until then for what the driver has
    /// queued (CallEngine.playOut); nil otherwise.
    var audioWaitDeferredUntil: Instant?
    var videoIn: InboundVideoStream?

    // Congestion control (CallEngine+Congestion.swift): every RTP packet we send leaves through
    // the pacer; what the peer sends with transport sequence numbers is recorded for feedback.
    var congestion = LinkCongestionController<PacedPacket>()
    var feedbackRecorder: TransportFeedbackRecorder
    var feedbackTimeline = ReferenceTimeUnwrapper()
    /// Padding-only packets on an SSRC of their own, sent to probe while video is paused.
    var probeOut: OutboundRTPStream
    var retransmissions = RetransmissionLimiter()
    /// What `retransmissions` resent of late, as a rate (bits per second), as of the last rate update.
    var recentResendBitsPerSecond = 0.0
    var traffic = LinkTraffic()
    /// How long the peer's audio queues on its way to us, and the share of our downlink we last
    /// told it to keep to (CallEngine+DownlinkShare).
    var incomingQueue = InboundQueueDelay()
    var downlinkShareSent: (bitsPerSecond: UInt64, at: Instant)?

    /// Which of our video the link is sent (CallEngine+Layers.swift).
    var forwarding = VideoForwarding()

    /// Whether the link has been connected (DTLS done) for at least `duration`.
    func isUp(for duration: Duration, now: Instant) -> Bool {
        dtlsConnectedAt.map { now.since($0) >= duration } ?? false
    }

    /// This end's secret for the words of a link without the DTLS exporter (a browser's): its
    /// commitment goes in our offer or answer, the secret itself over the control channel once
    /// the link is up (`ShortAuthenticationString`).
    let sasNonce: [UInt8]
    /// The peer's secret, once revealed and found to match its commitment.
    var peerSASNonce: [UInt8]?
    /// `peer-connected` was reported. With a peer that committed to a secret it waits for it (at
    /// most `CallEngine.sasNonceWait`), so that the event carries the words.
    var announced = false

    /// What a listener sent anyway: dropped, counted, reported once each.
    var droppedFromListener = 0
    var refusedListenerChat = 0

    init<R: RandomNumberGenerator>(peer: Participant, controlling: Bool, settings: Settings, now: Instant, random: inout R) {
        self.settings = settings
        self.peer = peer
        self.controlling = controlling
        credentials = IceCredentials(using: &random)
        openedAt = now
        lastHeard = now
        audioSSRC = SSRC(UInt32(truncatingIfNeeded: random.next()))
        videoSSRC = SSRC(UInt32(truncatingIfNeeded: random.next()))
        meter = RoundTripMeter(localSSRC: audioSSRC)
        feedbackRecorder = TransportFeedbackRecorder(senderSSRC: audioSSRC)
        probeOut = OutboundRTPStream(ssrc: SSRC(UInt32(truncatingIfNeeded: random.next())),
                                     payloadType: PayloadType(masking: SDPNegotiation.vp8PayloadType), marker: .firstPacket, random: &random)
        // The payload types are set again from what negotiation agrees.
        audioOut = OutboundRTPStream(ssrc: audioSSRC, payloadType: PayloadType(masking: SDPNegotiation.opusPayloadType), marker: .firstPacket,
                                     random: &random)
        videoOut = OutboundRTPStream(ssrc: videoSSRC, payloadType: PayloadType(masking: SDPNegotiation.vp8PayloadType),
                                     marker: .lastPacketOfFrame, historyCapacity: 512, random: &random)
        sasNonce = (0..<ShortAuthenticationString.nonceLength / 8).flatMap { _ in withUnsafeBytes(of: random.next()) { Array($0) } }
    }

    var id: ParticipantID { peer.id }

    /// DTLS is up and SRTP keyed (the link's own transport, `drainDTLS`, calls it then): the
    /// link is connected, heard from now, its reports start now.
    func becameConnected(now: Instant) {
        phase = .connected
        lastHeard = now
        lastReportSent = now
        dtlsConnectedAt = now
    }

    /// The link is over (failed, left, replaced, or we leave); it is never used again.
    func end() {
        phase = .disconnected
    }

    /// What the link itself has due next: its DTLS timer and playout, and once connected the end
    /// of the silence it allows, its next report, its pacer and its transport feedback.
    func considerDeadlines(in earliest: inout EarliestDeadline, reportInterval: Duration) {
        earliest.consider(dtls?.timeout)
        if phase == .connected {
            earliest.consider(lastHeard + silenceLimit)
            earliest.consider(nextReport(interval: reportInterval))
            considerCongestionDeadlines(in: &earliest)
        }
        earliest.consider(nextPlayout)
    }

    /// A round trip measured on the DTLS handshake: from our last flight (the answer to the
    /// ClientHello for the server, the Finished flight for the client) to the peer's answer that
    /// completed it; one real round trip plus the peer's processing (a few ms of ECDSA). Measured
    /// from the *last* flight so that a lost and retransmitted one does not count its wait.
    func handshakeRTT(connectedAt now: Instant) -> Double? {
        lastHandshakeFlightAt.map { now.since($0).milliseconds }
    }
}
