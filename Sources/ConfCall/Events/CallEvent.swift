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
    /// Whether others on the internet reach conf host's built-in rendezvous, and why.
    case reachability(Reachability)
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
    /// Our camera: off (`camera off`: no video goes out) or on again.
    case camera(on: Bool)
    /// We send from another camera now (`camera next`): its device and mode.
    case cameraSwitched(device: String, mode: String)
    /// A peer turned its camera off, or on again.
    case peerVideoMuted(Participant)
    case peerVideoUnmuted(Participant)
    /// We stopped (or resumed) getting a peer's video (`hide`, `show`); the peer stops sending it.
    case peerVideoHidden(Participant, hidden: Bool)
    case talking(Speaker, talking: Bool)
    /// We started talking while muted: nobody hears it (said at most every 15 s).
    case talkingWhileMuted
    case audioStats([AudioStatistics])
    /// Per link, what congestion control sees of the path (with `--stats`).
    case linkStats([LinkStatistics])
    /// A peer stopped getting our video: its link cannot carry it now; its audio goes on.
    case videoPaused(Participant, reason: VideoPauseReason)
    /// A peer gets our video again.
    case videoResumed(Participant)
    /// `conf check`: what a host and a joiner on this network would meet.
    case check(ConnectivityReport)
    /// `conf devices`: the sound server's sources and sinks, and the cameras.
    case devices(sources: [SoundDevice], sinks: [SoundDevice], cameras: [CameraDevice])
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
        case room, reachability, joined
        case peerJoined = "peer-joined", peerLeft = "peer-left"
        case peerConnected = "peer-connected", peerDisconnected = "peer-disconnected"
        case chat, sent, muted
        case peerMuted = "peer-muted", peerMutedLocally = "peer-muted-locally"
        case camera, cameraSwitched = "camera-switched"
        case peerVideoMuted = "peer-video-muted", peerVideoUnmuted = "peer-video-unmuted", peerVideoHidden = "peer-video-hidden"
        case talking, talkingWhileMuted = "talking-while-muted"
        case audioStats = "audio-stats", linkStats = "link-stats"
        case videoPaused = "video-paused", videoResumed = "video-resumed"
        case devices, check
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
        case .reachability: .reachability
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
        case .camera: .camera
        case .cameraSwitched: .cameraSwitched
        case .peerVideoMuted: .peerVideoMuted
        case .peerVideoUnmuted: .peerVideoUnmuted
        case .peerVideoHidden: .peerVideoHidden
        case .talking: .talking
        case .talkingWhileMuted: .talkingWhileMuted
        case .audioStats: .audioStats
        case .linkStats: .linkStats
        case .videoPaused: .videoPaused
        case .videoResumed: .videoResumed
        case .devices: .devices
        case .check: .check
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
