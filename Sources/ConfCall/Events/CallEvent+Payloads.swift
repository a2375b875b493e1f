import ConfCore
import ConfWire

/// What the bigger events carry.
extension CallEvent {
    public struct RoomOpened: Equatable, Sendable {
        public var room: RoomCreated
        /// The command that joins as a publisher, and the one that joins as a listener.
        public var joinCommand: String
        public var listenJoinCommand: String
        /// Further addresses of this machine, after the one the commands name.
        public var otherAddresses: [String]
        /// The links that join as a publisher and as a listener (`InvitationLink`): a browser opens
        /// them, `conf join LINK` takes them.
        public var link: String
        public var listenLink: String
        /// Whether a browser can use the links: not on plain http:// to another machine, where a
        /// page has no secure context (no camera, microphone or WebCrypto).
        public var forBrowsers: Bool
        /// Which certificate the rendezvous serves, when conf knows (its own rendezvous, or one named
        /// by fingerprint); nil for a standing one trusted through a CA.
        public var certificate: ServedCertificate?
        /// The rendezvous's certificate is its own (self-signed): a browser warns before the page.
        public var selfSignedCertificate: Bool { certificate?.kind == .selfSigned }

        public init(room: RoomCreated, joinCommand: String, listenJoinCommand: String, otherAddresses: [String] = [],
                    link: String = "", listenLink: String = "", forBrowsers: Bool = true, certificate: ServedCertificate? = nil) {
            self.room = room
            self.joinCommand = joinCommand
            self.listenJoinCommand = listenJoinCommand
            self.otherAddresses = otherAddresses
            self.link = link
            self.listenLink = listenLink
            self.forBrowsers = forBrowsers
            self.certificate = certificate
        }

        /// The links as the call page's: empty where a browser cannot use them.
        public var browserURL: String { forBrowsers ? link : "" }
        public var listenBrowserURL: String { forBrowsers ? listenLink : "" }
    }

    /// `conf check`'s findings.
    public struct ConnectivityReport: Equatable, Sendable {
        public var verdict: ConnectivityVerdict
        /// The router's port mapping, as `conf host` would judge it.
        public var portMapping: Reachability
        /// The STUN servers asked ("host:port"), in order; empty when none was given.
        public var stunServers: [String]
        /// This machine's global IPv6 addresses.
        public var ipv6: [String]
        /// The TURN servers given ("host:port") and whether each answered.
        public var turn: [TURNAnswer]

        public struct TURNAnswer: Equatable, Sendable {
            public var server: String
            public var answered: Bool
            public init(server: String, answered: Bool) { (self.server, self.answered) = (server, answered) }
        }

        public init(verdict: ConnectivityVerdict, portMapping: Reachability, stunServers: [String], ipv6: [String], turn: [TURNAnswer]) {
            self.verdict = verdict
            self.portMapping = portMapping
            self.stunServers = stunServers
            self.ipv6 = ipv6
            self.turn = turn
        }

        /// `turn` in one word: none given, reachable (one answered at least), or unreachable.
        public var turnState: String { turn.isEmpty ? "none" : turn.contains(where: \.answered) ? "reachable" : "unreachable" }
    }

    public struct Joined: Equatable, Sendable {
        public var you: ParticipantID
        /// Our own name, as we gave it.
        public var name: String
        public var role: Role
        public var room: RoomID
        public var roomName: String
        public var resolution: Resolution
        public var peers: [Participant]

        public init(you: ParticipantID, name: String, role: Role, room: RoomID, roomName: String, resolution: Resolution,
                    peers: [Participant]) {
            self.you = you
            self.name = name
            self.role = role
            self.room = room
            self.roomName = roomName
            self.resolution = resolution
            self.peers = peers
        }
    }

    public struct PeerConnected: Equatable, Sendable {
        public var peer: Participant
        /// "host", "srflx", "prflx" or "relay": the least direct kind on the selected pair.
        public var path: String
        /// The selected pair's addresses, "HOST:PORT" (empty when unknown).
        public var local: String
        public var remote: String
        /// The DTLS handshake's last round trip (nil when it measured none); RTCP's come in `link-stats`.
        public var roundTrip: Duration?
        /// The short authentication string's words.
        public var sas: [String]
        /// The SRTP profile DTLS agreed, as RFC 5764 and RFC 7714 name it without "SRTP_"
        /// ("AEAD_AES_128_GCM", "AES128_CM_SHA1_80").
        public var srtp: String
        /// From the link's creation (offer made or expected) to each step.
        public var iceConnected: Duration?
        public var dtlsConnected: Duration?
        public var announced: Duration?

        public init(peer: Participant, path: String, local: String, remote: String, roundTrip: Duration?, sas: [String],
                    srtp: String = "", iceConnected: Duration?, dtlsConnected: Duration?, announced: Duration?) {
            self.peer = peer
            self.path = path
            self.local = local
            self.remote = remote
            self.roundTrip = roundTrip
            self.sas = sas
            self.srtp = srtp
            self.iceConnected = iceConnected
            self.dtlsConnected = dtlsConnected
            self.announced = announced
        }
    }

    public struct PeerDisconnected: Equatable, Sendable {
        public var peer: Participant
        public var reason: DisconnectReason
        /// Whether the link had been up ("lost ann") or never came up ("could not connect to ann").
        public var wasConnected: Bool

        public init(peer: Participant, reason: DisconnectReason, wasConnected: Bool) {
            self.peer = peer
            self.reason = reason
            self.wasConnected = wasConnected
        }
    }

    /// Who started or stopped talking.
    public enum Speaker: Equatable, Sendable {
        /// Ourselves, by our own id.
        case you(ParticipantID)
        case peer(Participant)
    }

    /// One peer's received audio since the previous report.
    public struct AudioStatistics: Equatable, Sendable {
        public var peer: ParticipantID
        public var kbps: Double
        public var lossPercent: Double
        public var jitter: Duration
        public var buffered: Duration
        public var target: Duration
        public var concealed: Duration
        /// Audio left out to give back delay the buffer no longer needs.
        public var skipped: Duration

        public init(peer: ParticipantID, kbps: Double, lossPercent: Double, jitter: Duration, buffered: Duration,
                    target: Duration, concealed: Duration, skipped: Duration = .zero) {
            self.peer = peer
            self.kbps = kbps
            self.lossPercent = lossPercent
            self.jitter = jitter
            self.buffered = buffered
            self.target = target
            self.concealed = concealed
            self.skipped = skipped
        }
    }

    public struct SoundDevice: Equatable, Sendable {
        public var name: String
        public var description: String
        /// A source that records what a sink plays.
        public var isMonitor: Bool
        /// The sound server's default (what `pulse` with no name uses).
        public var isDefault: Bool

        public init(name: String, description: String, isMonitor: Bool, isDefault: Bool = false) {
            self.name = name
            self.description = description
            self.isMonitor = isMonitor
            self.isDefault = isDefault
        }
    }

    /// A camera as `conf devices` lists it: its device path, the driver's name for it (from the
    /// device: escaped before it reaches a terminal), what it offers, and whether
    /// `--video-source auto` (the default) picks it.
    public struct CameraDevice: Equatable, Sendable {
        public var path: String
        public var name: String
        public var modes: [CameraMode]
        public var isDefault: Bool

        public init(path: String, name: String, modes: [CameraMode], isDefault: Bool) {
            self.path = path
            self.name = name
            self.modes = modes
            self.isDefault = isDefault
        }
    }

    /// A pixel format conf reads (YUYV, NV12, YU12, MJPEG), a size, and the most frames a second
    /// the camera gives at it (0: it does not say).
    public struct CameraMode: Equatable, Sendable {
        public var format: String
        public var width: Int
        public var height: Int
        public var framesPerSecond: Int

        public init(format: String, width: Int, height: Int, framesPerSecond: Int) {
            self.format = format
            self.width = width
            self.height = height
            self.framesPerSecond = framesPerSecond
        }
    }

    public enum Device: String, Sendable {
        case microphone, speaker, camera
    }

    public enum LostDevice: Equatable, Sendable {
        case microphone
        case camera
        /// The playback stream of one peer.
        case speaker(Participant)
    }

    public enum ListenerTraffic: String, Sendable {
        case media, chat
    }
}
