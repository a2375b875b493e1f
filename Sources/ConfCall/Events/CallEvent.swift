import ConfCore
import ConfWire

/// Everything a participant reports while it runs: one case per `--json` event `type`. Cases carry
/// typed values, including what only the human line shows (a peer's name where the JSON has its
/// id); the words of a reason are made from its code and details by the renderers
/// (`CallEvent+JSON.swift`, `CallEvent+Human.swift`), never at the place that reports it.
///
/// Text in these values may come from the network (names, chat, reasons): JSON carries it exact,
/// the human renderer escapes it.
public enum CallEvent: Equatable, Sendable {
    /// conf host created its room.
    case room(RoomOpened)
    /// We are in the room.
    case joined(Joined)
    case peerJoined(Participant)
    case peerLeft(Participant)
    case peerConnected(PeerConnected)
    case peerDisconnected(PeerDisconnected)
    case chat(from: Participant, text: String)
    case sent(to: Participant, text: String)
    /// Our own mute state.
    case muted(audio: Bool, video: Bool)
    /// A peer muted or unmuted itself.
    case peerMuted(Participant, audio: Bool, video: Bool)
    /// We stopped or resumed playing a peer (here only).
    case peerMutedLocally(Participant, muted: Bool)
    case talking(Speaker, talking: Bool)
    case audioStats([AudioStatistics])
    /// `conf devices`: the sound server's sources and sinks.
    case devices(sources: [SoundDevice], sinks: [SoundDevice])
    /// No sound server: the call goes on without the default devices; `reason` is the library's words.
    case devicesMissing([Device], reason: String)
    case deviceLost(LostDevice)
    /// A recording stopped; `error` is the system's words ("No space left on device").
    case recordError(peer: Participant, path: String, error: String)
    /// A listen-only participant sent what its role does not allow (reported once per kind).
    case listenerIgnored(Participant, what: ListenerTraffic)
    /// Our join waits at a locked room for someone to admit it; `message` is the rendezvous's.
    case knocking(room: RoomID, message: String)
    case knock(ServerMessage.Knock)
    case knockEnded(KnockID, outcome: ServerMessage.KnockOutcome)
    case rendezvousLost(rendezvous: String, reason: RendezvousLoss)
    case rendezvousBack(rendezvous: String)
    case rendezvousClosed(rendezvous: String, reason: RendezvousClosing)
    case left(LeaveReason)
    case error(ErrorReport)

    /// The event's `type`, one per case; `Kind.allCases` is what the documentation must list.
    public enum Kind: String, CaseIterable, Sendable {
        case room, joined
        case peerJoined = "peer-joined", peerLeft = "peer-left"
        case peerConnected = "peer-connected", peerDisconnected = "peer-disconnected"
        case chat, sent, muted
        case peerMuted = "peer-muted", peerMutedLocally = "peer-muted-locally"
        case talking
        case audioStats = "audio-stats"
        case devices
        case devicesMissing = "devices-missing", deviceLost = "device-lost"
        case recordError = "record-error"
        case listenerIgnored = "listener-ignored"
        case knocking, knock
        case knockEnded = "knock-ended"
        case rendezvousLost = "rendezvous-lost", rendezvousBack = "rendezvous-back", rendezvousClosed = "rendezvous-closed"
        case left, error
    }

    /// Every event type conf prints, for checking the documentation against.
    public static let allTypes: [String] = Kind.allCases.map(\.rawValue)

    public var kind: Kind {
        switch self {
        case .room: .room
        case .joined: .joined
        case .peerJoined: .peerJoined
        case .peerLeft: .peerLeft
        case .peerConnected: .peerConnected
        case .peerDisconnected: .peerDisconnected
        case .chat: .chat
        case .sent: .sent
        case .muted: .muted
        case .peerMuted: .peerMuted
        case .peerMutedLocally: .peerMutedLocally
        case .talking: .talking
        case .audioStats: .audioStats
        case .devices: .devices
        case .devicesMissing: .devicesMissing
        case .deviceLost: .deviceLost
        case .recordError: .recordError
        case .listenerIgnored: .listenerIgnored
        case .knocking: .knocking
        case .knock: .knock
        case .knockEnded: .knockEnded
        case .rendezvousLost: .rendezvousLost
        case .rendezvousBack: .rendezvousBack
        case .rendezvousClosed: .rendezvousClosed
        case .left: .left
        case .error: .error
        }
    }

    public var type: String { kind.rawValue }
}

// MARK: Payloads

extension CallEvent {
    public struct RoomOpened: Equatable, Sendable {
        public var room: RoomCreated
        /// The command that joins as a publisher, and the one that joins as a listener.
        public var joinCommand: String
        public var listenJoinCommand: String
        /// Further addresses of this machine, after the one the commands name.
        public var otherAddresses: [String]

        public init(room: RoomCreated, joinCommand: String, listenJoinCommand: String, otherAddresses: [String] = []) {
            self.room = room
            self.joinCommand = joinCommand
            self.listenJoinCommand = listenJoinCommand
            self.otherAddresses = otherAddresses
        }
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
        public var roundTrip: Duration
        /// The short authentication string's words.
        public var sas: [String]
        /// From the link's creation (offer made or expected) to each step.
        public var iceConnected: Duration?
        public var dtlsConnected: Duration?
        public var announced: Duration?

        public init(peer: Participant, path: String, local: String, remote: String, roundTrip: Duration, sas: [String],
                    iceConnected: Duration?, dtlsConnected: Duration?, announced: Duration?) {
            self.peer = peer
            self.path = path
            self.local = local
            self.remote = remote
            self.roundTrip = roundTrip
            self.sas = sas
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

        public init(peer: ParticipantID, kbps: Double, lossPercent: Double, jitter: Duration, buffered: Duration,
                    target: Duration, concealed: Duration) {
            self.peer = peer
            self.kbps = kbps
            self.lossPercent = lossPercent
            self.jitter = jitter
            self.buffered = buffered
            self.target = target
            self.concealed = concealed
        }
    }

    public struct SoundDevice: Equatable, Sendable {
        public var name: String
        public var description: String
        /// A source that records what a sink plays.
        public var isMonitor: Bool

        public init(name: String, description: String, isMonitor: Bool) {
            self.name = name
            self.description = description
            self.isMonitor = isMonitor
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

    /// Why the connection to the rendezvous broke (the call goes on; conf reconnects).
    public enum RendezvousLoss: Equatable, Sendable {
        /// The connection closed: the WebSocket close code and the server's reason (may be empty).
        case closed(code: UInt16, reason: String)
        /// No answer to pings for too long.
        case stoppedAnswering
        /// Reconnected, then lost again before the seat was taken back.
        case closedWhileResuming

        public var code: String {
            switch self {
            case .closed: "closed"
            case .stoppedAnswering: "stopped-answering"
            case .closedWhileResuming: "closed-while-resuming"
            }
        }
    }

    /// Why there is no rendezvous from now on (the call goes on with those connected).
    public enum RendezvousClosing: Equatable, Sendable {
        /// The host left, and their embedded rendezvous with them.
        case hostLeft
        /// A reconnected rendezvous no longer has the seat: it said `code` (usually `resume-refused`).
        case seatGone(ErrorCode, message: String)
        /// The rendezvous gave no resume token, so the seat cannot be taken back.
        case noResume

        public var code: String {
            switch self {
            case .hostLeft: "host-left"
            case .seatGone(let code, _): code.rawValue
            case .noResume: "no-resume"
            }
        }

        /// The reason in words; `rendezvous` is its address.
        public func words(rendezvous: String) -> String {
            switch self {
            case .hostLeft: "the host left and their rendezvous with them"
            case .seatGone(_, let message): "the rendezvous at \(rendezvous) no longer has this room (\(message))"
            case .noResume: "the rendezvous at \(rendezvous) gave no resume token, so the seat cannot be taken back"
            }
        }
    }

    /// Why we left.
    public enum LeaveReason: Equatable, Sendable {
        /// --duration ran out.
        case duration
        /// SIGINT or SIGTERM.
        case signal
        /// The `leave` command on stdin.
        case command
        case hostLeft
        /// The rendezvous was gone and the last link ended.
        case nobodyLeft
        /// The session failed with this error code (an `error` event said why).
        case failed(code: String)

        public var code: String {
            switch self {
            case .duration: "duration"
            case .signal: "signal"
            case .command: "command"
            case .hostLeft: "host-left"
            case .nobodyLeft: "nobody-left"
            case .failed(let code): code
            }
        }
    }

    /// Something failed; `code` is stable for scripts.
    public enum ErrorReport: Equatable, Sendable {
        /// The rendezvous reported an error while we were in the room.
        case rendezvous(ErrorCode, message: String)
        /// A command on stdin could not be done; the call goes on.
        case badCommand(String)
        /// The session (or the command) failed and ends.
        case failed(code: String, message: String)

        public var code: String {
            switch self {
            case .rendezvous(let code, _): code.rawValue
            case .badCommand: "bad-command"
            case .failed(let code, _): code
            }
        }

        public var message: String {
            switch self {
            case .rendezvous(_, let message), .badCommand(let message), .failed(_, let message): message
            }
        }
    }
}
