import ConfWire

/// Builds conf's offers and answers and reads the other side's (JSEP, RFC 8829): one BUNDLE group
/// with an audio (Opus/111), a video (VP8/96) and a data channel section, rtcp-mux, trickle ICE.
public enum SDPNegotiation {
    public static let opusPayloadType: UInt8 = 111
    public static let vp8PayloadType: UInt8 = 96
    public static let sctpPort: UInt16 = 5000
    public static let audioLevelURI = "urn:ietf:params:rtp-hdrext:ssrc-audio-level"
    static let rtpProfile = "UDP/TLS/RTP/SAVPF"
    static let sctpProfile = "UDP/DTLS/SCTP"
    /// conf plays Opus packets of whole 20 ms frames, 20 to 120 ms (RFC 7587 section 7): it says
    /// so with minptime and a=maxptime (a sender of longer packets reads the peer's a=maxptime
    /// first: conf builds before it said nothing and played 20 ms only). In-band FEC is wanted.
    static let opusFormatParameters = "minptime=20;useinbandfec=1"
    public static let maxAudioPacketTime: UInt32 = 120

    public static func offer(from local: LocalEndpoint, sessionID: UInt64) -> SessionDescription {
        var audio = section(.audio, mid: "0", local: local, setup: .actpass)
        audio.formats = [String(opusPayloadType)]
        audio.rtpMaps = [RTPMap(payloadType: opusPayloadType, encoding: "opus", clockRate: 48000, channels: 2)]
        audio.formatParameters = [opusPayloadType: opusFormatParameters]
        audio.maxPacketTime = maxAudioPacketTime
        audio.extensions = [(1, audioLevelURI)]
        if local.congestionControl { offerCongestionControl(in: &audio, payloadType: opusPayloadType, receiverEstimate: false) }
        audio.direction = local.mediaDirection
        if local.role == .publisher { audio.ssrcs = [local.audioSSRC.rawValue] }
        audio.mediaStreams = mediaStreams(for: audio, sessionID: sessionID)
        var video = section(.video, mid: "1", local: local, setup: .actpass)
        video.formats = [String(vp8PayloadType)]
        video.rtpMaps = [RTPMap(payloadType: vp8PayloadType, encoding: "VP8", clockRate: 90000)]
        video.rtcpFeedback = [("96", "nack"), ("96", "nack pli"), ("96", "ccm fir")]
        if local.congestionControl { offerCongestionControl(in: &video, payloadType: vp8PayloadType, receiverEstimate: true) }
        video.direction = local.mediaDirection
        if local.role == .publisher { video.ssrcs = [local.videoSSRC.rawValue] }
        video.mediaStreams = mediaStreams(for: video, sessionID: sessionID)
        var data = section(.application, mid: "2", local: local, setup: .actpass)
        data.sctpPort = sctpPort
        data.maxMessageSize = 262_144
        return SessionDescription(sessionID: sessionID, bundle: ["0", "1", "2"], media: [audio, video, data], exporterSAS: true,
                                  sasCommitment: local.sasCommitment)
    }

    /// The answer to `offer`, and what was agreed. Sections conf cannot use are rejected (port 0),
    /// not refused: an offer with an extra m-line still connects.
    public static func answer(to offer: SessionDescription, from local: LocalEndpoint, sessionID: UInt64)
        throws(NegotiationError) -> (SessionDescription, NegotiatedLink)
    {
        let transport = try remoteTransport(offer, allowActpass: true)
        var media: [MediaDescription] = []
        var link = NegotiatedLink(
            remoteUfrag: transport.ufrag, remotePwd: transport.pwd, remoteFingerprints: transport.fingerprints,
            dtlsRole: transport.setup == .active ? .server : .client, iceControlling: false, transportMid: transport.mid,
            audio: nil, video: nil, sctpPort: nil, remoteCandidates: transport.candidates, peerExporterSAS: offer.exporterSAS,
            peerSASCommitment: offer.sasCommitment)
        var accepted: [String] = []
        for remote in offer.media {
            let mid = remote.mid ?? ""
            var answer = section(remote.kind, mid: mid, local: local, setup: transport.setup == .active ? .passive : .active)
            answer.proto = remote.proto
            answer.formats = remote.formats
            let usable = !remote.isRejected && offer.bundle.contains(mid) && !mid.isEmpty
            switch remote.kind {
            case .audio where usable && link.audio == nil, .video where usable && link.video == nil:
                let codec = remote.kind == .audio ? "opus" : "VP8"
                guard let map = remote.rtpMaps.first(where: { $0.encoding.lowercased() == codec.lowercased() }) else {
                    media.append(rejected(answer))
                    continue
                }
                guard remote.rtcpMux else { throw NegotiationError("the offer's \(remote.kind.name) section lacks a=rtcp-mux, which conf requires") }
                answer.formats = [String(map.payloadType)]
                answer.rtpMaps = [RTPMap(payloadType: map.payloadType, encoding: map.encoding, clockRate: map.clockRate, channels: map.channels)]
                answer.direction = remote.direction.answer(wanting: local.mediaDirection)
                answer.mediaStreams = mediaStreams(for: answer, sessionID: sessionID)
                // RFC 5506 section 5: reduced-size RTCP only when the offer asked for it.
                answer.rtcpReducedSize = remote.rtcpReducedSize
                // The SDP parser admits only 0...127 in a=rtpmap.
                var negotiated = NegotiatedMedia(mid: mid, payloadType: PayloadType(masking: map.payloadType), direction: answer.direction,
                                                 remoteSSRCs: remote.ssrcs.map { SSRC($0) })
                if remote.kind == .audio {
                    answer.formatParameters = [map.payloadType: opusFormatParameters]
                    answer.maxPacketTime = maxAudioPacketTime
                    negotiated.remoteMaxPacketTime = remote.maxPacketTime
                    if let level = remote.extensions.first(where: { $0.uri == audioLevelURI }) {
                        answer.extensions.append(level)
                        negotiated.audioLevelExtension = level.id
                    }
                    if answer.direction == .sendrecv || answer.direction == .sendonly { answer.ssrcs = [local.audioSSRC.rawValue] }
                    if local.congestionControl {
                        answerCongestionControl(to: remote, payloadType: map.payloadType, answer: &answer, negotiated: &negotiated)
                    }
                    link.audio = negotiated
                } else {
                    answer.rtcpFeedback = remote.rtcpFeedback.filter { $0.payloadType == String(map.payloadType) && ["nack", "nack pli", "ccm fir"].contains($0.value) }
                    if answer.direction == .sendrecv || answer.direction == .sendonly { answer.ssrcs = [local.videoSSRC.rawValue] }
                    if local.congestionControl {
                        answerCongestionControl(to: remote, payloadType: map.payloadType, answer: &answer, negotiated: &negotiated)
                    }
                    link.video = negotiated
                }
                media.append(answer)
                accepted.append(mid)
            case .application where usable && link.sctpPort == nil && remote.formats.contains("webrtc-datachannel"):
                answer.sctpPort = sctpPort
                answer.maxMessageSize = 262_144
                link.sctpPort = remote.sctpPort ?? sctpPort
                media.append(answer)
                accepted.append(mid)
            default:
                media.append(rejected(answer))
            }
        }
        guard !accepted.isEmpty else { throw NegotiationError("the offer has no section conf can use (audio/Opus, video/VP8 or a data channel)") }
        let answer = SessionDescription(sessionID: sessionID, bundle: accepted, media: media, exporterSAS: true,
                                        sasCommitment: local.sasCommitment)
        link.transportMid = accepted[0]
        return (answer, link)
    }

    /// What was agreed, from the remote answer to our `offer`.
    public static func accept(answer: SessionDescription, to offer: SessionDescription) throws(NegotiationError) -> NegotiatedLink {
        let transport = try remoteTransport(answer, allowActpass: false)
        var link = NegotiatedLink(
            remoteUfrag: transport.ufrag, remotePwd: transport.pwd, remoteFingerprints: transport.fingerprints,
            dtlsRole: transport.setup == .active ? .server : .client, iceControlling: true, transportMid: transport.mid,
            audio: nil, video: nil, sctpPort: nil, remoteCandidates: transport.candidates, peerExporterSAS: answer.exporterSAS,
            peerSASCommitment: answer.sasCommitment)
        guard answer.media.count == offer.media.count else {
            throw NegotiationError("the answer has \(answer.media.count) media sections for our \(offer.media.count)")
        }
        for (ours, theirs) in zip(offer.media, answer.media) where !theirs.isRejected && answer.bundle.contains(theirs.mid ?? "") {
            guard theirs.mid == ours.mid, theirs.kind == ours.kind else {
                throw NegotiationError("the answer's sections do not match the offer's (mid \(theirs.mid ?? "none"))")
            }
            switch theirs.kind {
            case .audio, .video:
                guard let pt = theirs.formats.first.flatMap({ UInt8($0) }).flatMap(PayloadType.init(rawValue:)),
                      ours.rtpMaps.contains(where: { $0.payloadType == pt.rawValue }) else {
                    throw NegotiationError("the answer picked a payload type the offer did not offer")
                }
                var negotiated = NegotiatedMedia(mid: theirs.mid!, payloadType: pt, direction: ours.direction.answerSide(theirs.direction),
                                                 remoteSSRCs: theirs.ssrcs.map { SSRC($0) })
                negotiated.audioLevelExtension = theirs.extensions.first { $0.uri == audioLevelURI }?.id
                acceptCongestionControl(answer: theirs, offer: ours, payloadType: pt.rawValue, negotiated: &negotiated)
                if theirs.kind == .audio {
                    negotiated.remoteMaxPacketTime = theirs.maxPacketTime
                    link.audio = negotiated
                } else {
                    link.video = negotiated
                }
            case .application:
                link.sctpPort = theirs.sctpPort ?? sctpPort
            case .other:
                break
            }
        }
        return link
    }

    private struct RemoteTransport {
        var ufrag: String, pwd: String, fingerprints: [Fingerprint], setup: SetupRole, mid: String, candidates: [IceCandidate]
    }

    private static func remoteTransport(_ sdp: SessionDescription, allowActpass: Bool) throws(NegotiationError) -> RemoteTransport {
        guard let tagged = sdp.bundleTransport, let mid = tagged.mid else {
            throw NegotiationError("the SDP has no BUNDLE group with a mid: conf needs one transport for all media")
        }
        guard let ufrag = tagged.iceUfrag, let pwd = tagged.icePwd else { throw NegotiationError("the SDP has no a=ice-ufrag/a=ice-pwd") }
        guard !tagged.fingerprints.isEmpty else {
            throw NegotiationError("the SDP has no a=fingerprint: the link could not be authenticated, so it is refused")
        }
        // RFC 8122 section 5: a peer may give several hash functions; the ones conf can compute
        // are all checked against the certificate, the others (md5, unknown names) are ignored.
        let fingerprints = tagged.fingerprints.filter { $0.hashFunction != nil }
        guard !fingerprints.isEmpty else {
            let given = Set(tagged.fingerprints.map(\.algorithm)).sorted().joined(separator: ", ")
            let known = Fingerprint.HashFunction.allCases.map(\.rawValue).joined(separator: ", ")
            throw NegotiationError("the SDP's a=fingerprint lines use only \(given.prefix(80)), which conf cannot verify (it can use \(known)): "
                                   + "the link could not be authenticated, so it is refused")
        }
        let setup = tagged.setup ?? .actpass
        if setup == .actpass && !allowActpass { throw NegotiationError("the answer says a=setup:actpass; an answer must choose active or passive") }
        return RemoteTransport(ufrag: ufrag, pwd: pwd, fingerprints: fingerprints, setup: setup, mid: mid,
                               candidates: sdp.media.flatMap(\.candidates))
    }

    private static func section(_ kind: MediaKind, mid: String, local: LocalEndpoint, setup: SetupRole) -> MediaDescription {
        var media = MediaDescription(kind: kind, proto: kind == .application ? sctpProfile : rtpProfile,
                                     formats: kind == .application ? ["webrtc-datachannel"] : [], mid: mid)
        media.iceUfrag = local.iceUfrag
        media.icePwd = local.icePwd
        media.iceOptions = ["trickle"]
        media.fingerprint = local.fingerprint
        media.setup = setup
        media.rtcpMux = kind != .application
        media.rtcpReducedSize = kind != .application
        return media
    }

    /// RFC 8830 and JSEP (RFC 8829 section 5.2.1): a section we send on names its stream and
    /// track, so that a browser plays our audio and video as one stream. The stream id is this
    /// participant's (its random session id, already public in o=), one per peer connection.
    static func mediaStreams(for section: MediaDescription, sessionID: UInt64) -> [MediaStreamID] {
        guard section.direction == .sendrecv || section.direction == .sendonly else { return [] }
        let stream = "conf-" + String(sessionID, radix: 16)
        return MediaStreamID(stream: stream, track: "\(stream)-\(section.kind.name)").map { [$0] } ?? []
    }

    private static func rejected(_ section: MediaDescription) -> MediaDescription {
        var rejected = section
        rejected.port = 0
        rejected.direction = .inactive
        return rejected
    }
}

extension Direction {
    /// Our direction once the answerer said `answered` to our offer of `self`.
    func answerSide(_ answered: Direction) -> Direction {
        switch answered {
        case .sendrecv: self
        case .sendonly: self == .sendrecv || self == .recvonly ? .recvonly : .inactive
        case .recvonly: self == .sendrecv || self == .sendonly ? .sendonly : .inactive
        case .inactive: .inactive
        }
    }
}
