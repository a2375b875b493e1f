import ConfWire

/// What this participant brings to every peer connection: its ICE credentials for that link, its
/// DTLS certificate's fingerprint, and what it will send.
public struct LocalEndpoint: Sendable {
    public var iceUfrag: String
    public var icePwd: String
    public var fingerprint: Fingerprint
    /// Publishers send and receive; listeners only receive.
    public var role: Role
    public var audioSSRC: SSRC
    public var videoSSRC: SSRC
    /// The role the rendezvous gave the peer at the other end of this link. It decides what we
    /// accept from the peer, whatever the peer's own SDP asks for.
    public var peerRole: Role
    /// Whether we offer (and answer) transport-wide congestion control: the transport sequence
    /// extension and `transport-cc` feedback. Off, this side negotiates as a peer that predates it.
    public var congestionControl = true
    /// Our commitment to the nonce this link reveals once up (`a=x-conf-sas-commit`).
    public var sasCommitment: [UInt8]?

    public init(iceUfrag: String, icePwd: String, fingerprint: Fingerprint, role: Role, audioSSRC: SSRC, videoSSRC: SSRC,
                peerRole: Role = .publisher, congestionControl: Bool = true, sasCommitment: [UInt8]? = nil) {
        self.congestionControl = congestionControl
        self.sasCommitment = sasCommitment
        self.iceUfrag = iceUfrag
        self.icePwd = icePwd
        self.fingerprint = fingerprint
        self.role = role
        self.audioSSRC = audioSSRC
        self.videoSSRC = videoSSRC
        self.peerRole = peerRole
    }

    /// What we offer or answer for audio and video. The listen-only role is enforced here, by the
    /// publisher, not trusted from the listener's client: toward a listener a publisher only sends
    /// (a=sendonly, or a=inactive when the listener will not receive), whatever it offered.
    var mediaDirection: Direction {
        switch (role, peerRole) {
        case (.listener, _): .recvonly
        case (.publisher, .listener): .sendonly
        case (.publisher, .publisher): .sendrecv
        }
    }
}

/// The outcome of offer/answer for one peer connection: everything the transport and DTLS need.
public struct NegotiatedLink: Sendable, Equatable {
    public var remoteUfrag: String
    public var remotePwd: String
    /// The peer's fingerprints that conf can verify (at least one): the certificate the peer
    /// presents in DTLS must match them (RFC 8122 section 5).
    public var remoteFingerprints: [Fingerprint]
    public var dtlsRole: DTLSRole
    /// The offerer controls ICE (RFC 8445 section 6.1.1).
    public var iceControlling: Bool
    /// The mid that carries the bundle's transport (candidates are signalled for it).
    public var transportMid: String
    public var audio: NegotiatedMedia?
    public var video: NegotiatedMedia?
    /// The SCTP port of the data channel, when both sides want one.
    public var sctpPort: UInt16?
    public var remoteCandidates: [IceCandidate]
    /// The peer says `a=x-conf-sas:exporter` (conf does): the words come from the DTLS session;
    /// otherwise (a browser) from both fingerprints (`ShortAuthenticationString`).
    public var peerExporterSAS = false
    /// The peer's commitment to the nonce it reveals once the link is up, if it sent one.
    public var peerSASCommitment: [UInt8]? = nil
}

public struct NegotiatedMedia: Sendable, Equatable {
    public var mid: String
    public var payloadType: PayloadType
    /// From this side's point of view.
    public var direction: Direction
    public var remoteSSRCs: [SSRC]
    /// The id of the audio-level header extension (RFC 6464) when both sides use it.
    public var audioLevelExtension: UInt8? = nil
    /// The id of the transport-wide sequence number header extension (`TransportSequenceNumber`)
    /// when both sides put it in this section; in one BUNDLE it is the same in every section.
    public var transportSequenceExtension: UInt8? = nil
    /// Both sides listed `a=rtcp-fb:PT transport-cc`: the peer reads our `TransportFeedback` and
    /// sends its own.
    public var transportFeedback = false
    /// The peer listed `a=rtcp-fb:PT goog-remb`: it may send REMB
    /// (`ReceiverEstimatedMaximumBitrate`), a cap on what to send it.
    public var receiverEstimatedBitrate = false
    /// Audio: the peer's a=maxptime (RFC 8866 section 6.5), the longest packet it plays, in ms;
    /// nil when it said none (conf gathers no frames for it then: see `AudioPacketGatherer`).
    public var remoteMaxPacketTime: UInt32? = nil

    /// Whether this side may send on it.
    public var sends: Bool { direction == .sendrecv || direction == .sendonly }
    public var receives: Bool { direction == .sendrecv || direction == .recvonly }
}

/// Why negotiation with a peer failed: the link is refused with this reason.
public struct NegotiationError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
