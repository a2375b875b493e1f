import ConfCore
import ConfWire

// PLACEHOLDER until the `events` branch lands with the full enum and its renderers.
public enum DisconnectCode: String, Sendable {
    case left, restarting
    case noPath = "no-path"
    case pathFailed = "path-failed"
    case connectTimeout = "connect-timeout"
    case silence
    case negotiationFailed = "negotiation-failed"
    case dtlsFailed = "dtls-failed"
}

public struct PeerConnectedInfo: Equatable, Sendable {
    public var peer: ParticipantID
    public var name: String
    public var path: String
    public var local: String
    public var remote: String
    public var rttMilliseconds: Double
    public var sas: String
    public var setupMilliseconds: (ice: Double?, dtls: Double?, connected: Double)
    public static func == (a: Self, b: Self) -> Bool { a.peer == b.peer && a.sas == b.sas && a.path == b.path }
}

public enum CallEvent: Equatable, Sendable {
    case peerConnected(PeerConnectedInfo)
    case peerDisconnected(peer: ParticipantID, name: String, code: DisconnectCode, wasConnected: Bool, reason: String)
    case chat(from: ParticipantID, name: String, text: String)
    case sent(to: ParticipantID, name: String, text: String)
    case muted(audio: Bool, video: Bool)
    case peerMuted(peer: ParticipantID, name: String, audio: Bool, video: Bool)
    case peerMutedLocally(peer: ParticipantID, name: String, muted: Bool)
    case talking(peer: ParticipantID?, name: String, talking: Bool)
    case listenerIgnored(peer: ParticipantID, name: String, what: String)
    case audioStats([AudioStatistics])
    case note(String)
}

public struct AudioStatistics: Equatable, Sendable {
    public var peer: ParticipantID
    public var kbps, lossPercent, jitterMilliseconds, bufferMilliseconds, targetMilliseconds, concealedMilliseconds: Double
}
