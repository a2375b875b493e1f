/// An SDP session description (RFC 8866) as WebRTC uses it (RFC 8829, JSEP): one BUNDLE group,
/// rtcp-mux, ICE credentials, a DTLS fingerprint, and one media section per m-line.
public struct SessionDescription: Equatable, Sendable {
    public var sessionID: UInt64
    public var sessionVersion: UInt64
    /// `a=group:BUNDLE` mids, in order.
    public var bundle: [String]
    public var media: [MediaDescription]
    /// `a=x-conf-sas:exporter`: the sender derives its short authentication string from its DTLS
    /// session (RFC 5705), as conf does; without it (a browser) both ends use the fingerprints.
    public var exporterSAS: Bool
    /// `a=x-conf-sas-commit:HEX`: the sender's commitment to the nonce it reveals once the link is
    /// up (32 bytes), for the words of a link without the exporter (`ShortAuthenticationString`).
    public var sasCommitment: [UInt8]?

    public init(sessionID: UInt64, sessionVersion: UInt64 = 2, bundle: [String], media: [MediaDescription], exporterSAS: Bool = false,
                sasCommitment: [UInt8]? = nil) {
        self.sessionID = sessionID
        self.sessionVersion = sessionVersion
        self.bundle = bundle
        self.media = media
        self.exporterSAS = exporterSAS
        self.sasCommitment = sasCommitment
    }

    /// The transport parameters of the bundle: those of its first media section (RFC 8843 section
    /// 7.1: the "offerer-tagged" section carries the transport).
    public var bundleTransport: MediaDescription? {
        if let first = bundle.first, let tagged = media.first(where: { $0.mid == first }) { return tagged }
        return media.first
    }
}

public enum MediaKind: Equatable, Sendable {
    case audio, video, application
    case other(String)

    init(_ text: String) {
        switch text {
        case "audio": self = .audio
        case "video": self = .video
        case "application": self = .application
        default: self = .other(text)
        }
    }

    public var name: String {
        switch self {
        case .audio: "audio"
        case .video: "video"
        case .application: "application"
        case .other(let name): name
        }
    }
}

/// `a=sendrecv` and friends (RFC 8866 section 6.7), from the describing side's point of view.
public enum Direction: String, Sendable, CaseIterable {
    case sendrecv, sendonly, recvonly, inactive

    /// What the answerer says to an offer of `self` when it wants `local` (RFC 3264 section 6.1).
    public func answer(wanting local: Direction) -> Direction {
        let mayAnswerSend = self == .sendrecv || self == .recvonly
        let mayAnswerReceive = self == .sendrecv || self == .sendonly
        let send = mayAnswerSend && (local == .sendrecv || local == .sendonly)
        let receive = mayAnswerReceive && (local == .sendrecv || local == .recvonly)
        switch (send, receive) {
        case (true, true): return .sendrecv
        case (true, false): return .sendonly
        case (false, true): return .recvonly
        case (false, false): return .inactive
        }
    }
}

/// `a=setup` (RFC 4145, RFC 5763 section 5): who opens the DTLS association.
public enum SetupRole: String, Sendable {
    case actpass, active, passive
}

/// Which end of the DTLS handshake a side plays, as `a=setup` decides it (RFC 5763 section 5):
/// `active` is the client.
public enum DTLSRole: Sendable, Equatable {
    case client, server
}

/// `a=fingerprint:sha-256 AB:CD:...` (RFC 8122): a hash of the certificate DTLS will present.
/// A section may carry several, with different hash functions (RFC 8122 section 5).
public struct Fingerprint: Hashable, Sendable, CustomStringConvertible {
    /// The hash function's name as written in SDP, lower-cased ("sha-256", or one conf does not know).
    public var algorithm: String
    public var bytes: [UInt8]

    public init(algorithm: String = "sha-256", bytes: [UInt8]) {
        self.algorithm = algorithm
        self.bytes = bytes
    }

    public init(_ function: HashFunction, bytes: [UInt8]) {
        self.init(algorithm: function.rawValue, bytes: bytes)
    }

    /// The hash function, when conf can compute it; nil for md5, md2 and names it does not know.
    public var hashFunction: HashFunction? { HashFunction(rawValue: algorithm) }

    /// "AB:CD:...", upper-case hex pairs.
    public var hex: String {
        bytes.map { byte in
            let digits = Array("0123456789ABCDEF")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
        }.joined(separator: ":")
    }

    public var description: String { "\(algorithm) \(hex)" }

    /// The hash functions of RFC 8122's registry that conf can verify a certificate with (with
    /// OpenSSL). md2 and md5 are in the registry too, but RFC 8122 section 5 forbids them.
    public enum HashFunction: String, Sendable, CaseIterable {
        case sha1 = "sha-1", sha224 = "sha-224", sha256 = "sha-256", sha384 = "sha-384", sha512 = "sha-512"

        public var digestLength: Int {
            switch self {
            case .sha1: 20
            case .sha224: 28
            case .sha256: 32
            case .sha384: 48
            case .sha512: 64
            }
        }
    }
}

public struct RTPMap: Equatable, Sendable {
    public var payloadType: UInt8
    public var encoding: String
    public var clockRate: UInt32
    public var channels: UInt8?

    public init(payloadType: UInt8, encoding: String, clockRate: UInt32, channels: UInt8? = nil) {
        self.payloadType = payloadType
        self.encoding = encoding
        self.clockRate = clockRate
        self.channels = channels
    }
}

public struct MediaDescription: Equatable, Sendable {
    public var kind: MediaKind
    /// 9 when ICE is used (RFC 8839); 0 rejects the section (RFC 3264 section 6).
    public var port: UInt16
    public var proto: String
    /// Payload types for RTP sections, `webrtc-datachannel` for the data channel.
    public var formats: [String]
    public var mid: String?
    public var direction: Direction
    public var iceUfrag: String?
    public var icePwd: String?
    public var iceOptions: [String]
    /// Every `a=fingerprint` of the section (or of the session, when the section has none).
    public var fingerprints: [Fingerprint]
    /// `a=msid` (RFC 8830): the media stream and track this section's media belongs to.
    public var mediaStreams: [MediaStreamID]
    public var setup: SetupRole?
    public var rtcpMux: Bool
    public var rtcpReducedSize: Bool
    public var bundleOnly: Bool
    public var rtpMaps: [RTPMap]
    /// `a=fmtp:PT params`, by payload type.
    public var formatParameters: [UInt8: String]
    /// `a=rtcp-fb:PT value`.
    public var rtcpFeedback: [(payloadType: String, value: String)]
    /// `a=extmap:ID URI`.
    public var extensions: [(id: UInt8, uri: String)]
    public var ssrcs: [UInt32]
    public var sctpPort: UInt16?
    public var maxMessageSize: UInt32?
    /// `a=maxptime:MS` (RFC 8866 section 6.5): the longest packet, in milliseconds of media, this
    /// side takes.
    public var maxPacketTime: UInt32?
    public var candidates: [IceCandidate]
    public var endOfCandidates: Bool

    public init(kind: MediaKind, port: UInt16 = 9, proto: String, formats: [String], mid: String?, direction: Direction = .sendrecv) {
        self.kind = kind
        self.port = port
        self.proto = proto
        self.formats = formats
        self.mid = mid
        self.direction = direction
        iceOptions = []
        fingerprints = []
        mediaStreams = []
        rtcpMux = false
        rtcpReducedSize = false
        bundleOnly = false
        rtpMaps = []
        formatParameters = [:]
        rtcpFeedback = []
        extensions = []
        ssrcs = []
        candidates = []
        endOfCandidates = false
    }

    public static func == (a: MediaDescription, b: MediaDescription) -> Bool {
        a.kind == b.kind && a.port == b.port && a.proto == b.proto && a.formats == b.formats && a.mid == b.mid
            && a.direction == b.direction && a.iceUfrag == b.iceUfrag && a.icePwd == b.icePwd && a.iceOptions == b.iceOptions
            && a.fingerprints == b.fingerprints && a.mediaStreams == b.mediaStreams && a.setup == b.setup && a.rtcpMux == b.rtcpMux
            && a.rtcpReducedSize == b.rtcpReducedSize && a.bundleOnly == b.bundleOnly && a.rtpMaps == b.rtpMaps
            && a.formatParameters == b.formatParameters
            && a.rtcpFeedback.map { "\($0.payloadType) \($0.value)" } == b.rtcpFeedback.map { "\($0.payloadType) \($0.value)" }
            && a.extensions.map { "\($0.id) \($0.uri)" } == b.extensions.map { "\($0.id) \($0.uri)" }
            && a.ssrcs == b.ssrcs && a.sctpPort == b.sctpPort && a.maxMessageSize == b.maxMessageSize
            && a.maxPacketTime == b.maxPacketTime
            && a.candidates == b.candidates && a.endOfCandidates == b.endOfCandidates
    }

    public var isRejected: Bool { port == 0 && !bundleOnly }

    /// The first fingerprint; setting it replaces them all (conf itself sends one, sha-256).
    public var fingerprint: Fingerprint? {
        get { fingerprints.first }
        set { fingerprints = newValue.map { [$0] } ?? [] }
    }
}

/// `a=msid:STREAM TRACK` (RFC 8830 section 2): which media stream (and track) an m-line's media
/// belongs to, so that a browser plays one participant's audio and video as one stream.
public struct MediaStreamID: Hashable, Sendable, CustomStringConvertible {
    public var stream: String
    /// The "appdata" of RFC 8830, which JSEP uses as the track id; optional on the wire.
    public var track: String?

    /// Nil unless both are 1 to 64 token characters (RFC 8830 section 2: msid-id and msid-appdata).
    public init?(stream: String, track: String?) {
        guard Self.isValid(stream), track.map(Self.isValid) ?? true else { return nil }
        self.stream = stream
        self.track = track
    }

    public var description: String { track.map { "\(stream) \($0)" } ?? stream }

    /// token-char of RFC 8866 section 9: visible ASCII except `"(),/:;<=>?@[\]`.
    static func isValid(_ id: String) -> Bool {
        (1...64).contains(id.utf8.count) && id.utf8.allSatisfy { c in
            c > 0x20 && c < 0x7F && !Array("\"(),/:;<=>?@[\\]".utf8).contains(c)
        }
    }
}
