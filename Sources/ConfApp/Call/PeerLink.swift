import ConfCore
import ConfCrypto
import ConfIO
import ConfSession
import ConfWire

/// Everything for the connection to one peer: its ICE agent, then DTLS over it, then SRTP.
///
///     negotiating ──ICE ready + DTLS done + fingerprint ok──▶ connected ──silence / ICE failed──▶ disconnected
///          └─────────── DTLS failure / ICE failed / connect timeout ───────────────────────────▶ disconnected
///
/// Threading: the event loop thread only.
final class PeerLink {
    enum Phase: Equatable { case negotiating, connected, disconnected }

    let peer: Participant
    let transport: IceTransport
    let localSSRC: UInt32
    let openedAt: Instant
    var phase = Phase.negotiating
    var dtls: DTLSEndpoint?
    var srtp: SRTPSession?
    var dataChannels: DataChannelTransport?
    /// The negotiated SCTP port of the peer's data channel section; nil when it has none.
    var sctpPort: UInt16?
    var isOfferer = false
    var chatOpen = false
    var controlOpen = false
    /// What the peer last said of itself over the control channel.
    var remoteAudioMuted = false
    var remoteVideoMuted = false
    /// Muted here only (mute-peer): not played, recorded as silence.
    var locallyMuted = false
    var talking = TalkingDetector()
    /// The peer's verifiable fingerprints, once negotiated.
    var remoteFingerprints: [Fingerprint] = []
    var selectedPair: IceTransport.SelectedPair?
    var iceConnected = false
    /// When ICE found a working pair and DTLS finished, for the set-up breakdown.
    var iceConnectedAt: Instant?
    var dtlsConnectedAt: Instant?
    /// When the first DTLS flight went out (client) or came in (server).
    var dtlsStartedAt: Instant?
    /// When our last handshake datagram went out, before DTLS connected (see `handshakeRTT`).
    var lastHandshakeFlightAt: Instant?
    var lastHeard: Instant
    /// Whether an SRTP or SRTCP packet from the peer has passed authentication yet.
    var heardSRTP = false
    var lastReportSent: Instant = .zero
    var meter: RoundTripMeter
    /// What was agreed for audio on this link, once negotiated.
    var audio: NegotiatedMedia?
    var audioOut: RTPSenderState
    var audioIn: AudioReceiver?
    var video: NegotiatedMedia?
    var videoSSRC: UInt32 = 0
    var videoOut: RTPSenderState
    var videoIn: VideoReceiver?
    var videoHistory = RetransmissionHistory()
    /// RTP packets the peer sent although it joined as a listener: dropped, counted.
    var droppedFromListener = 0
    /// Chat messages from a listener: not delivered, counted.
    var refusedListenerChat = 0
    /// DTLS is up; `peer-connected` waits for the first RTCP round trip (or a short deadline).
    var announced = false

    init(peer: Participant, transport: IceTransport, localSSRC: UInt32, now: Instant) {
        self.peer = peer
        self.transport = transport
        self.localSSRC = localSSRC
        openedAt = now
        lastHeard = now
        meter = RoundTripMeter(localSSRC: localSSRC)
        var random = KernelRandom()
        audioOut = RTPSenderState(random: &random)
        videoOut = RTPSenderState(random: &random)
    }

    /// "host", "srflx", "prflx" or "relay": the least direct kind on the selected pair.
    var path: String {
        guard let pair = selectedPair else { return "unknown" }
        let kinds = [pair.local.kind, pair.remote.kind]
        if kinds.contains(.relay) { return "relay" }
        if kinds.contains(.srflx) { return "srflx" }
        if kinds.contains(.prflx) { return "prflx" }
        return "host"
    }

    /// A round trip measured on the DTLS handshake: from our last flight (ClientHello's answer
    /// for the server, the Finished flight for the client) to the peer's answer that completed
    /// it; one real round trip plus the peer's processing (a few ms of ECDSA). Measured from the
    /// *last* flight so that a lost and retransmitted one does not count its wait.
    func handshakeRTT(connectedAt now: Instant) -> Double? {
        lastHandshakeFlightAt.map { now.since($0).milliseconds }
    }

}
