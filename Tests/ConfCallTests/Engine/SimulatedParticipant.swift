import ConfCall
import ConfCore
import ConfWire

extension SimulatedCall {
    /// One participant of a `SimulatedCall`: its engine, its fake ICE agents, what came out of it.
    final class Participant {
        let id: ParticipantID
        let name: String
        let role: Role
        let engine: CallEngine
        let address: String
        var agents: [ParticipantID: FakeIceAgent] = [:]
        var events: [(at: Instant, event: CallEvent)] = []
        var inRoom = false
        /// SIGSTOPped: nothing runs; datagrams wait in the socket's buffer (the first 256).
        var frozen = false
        var socketBuffer: [(from: ParticipantID, bytes: [UInt8])] = []
        var failed: Bool?
        /// Each agent asked for: whether it was to be relay-only.
        var relayOnlyAsked: [Bool] = []
        /// Agents not asked to be relay-only never connect (two symmetric NATs beside a TURN
        /// server, where only relay-only agents on both sides found a path).
        var deafUnlessRelayOnly = false
        /// Frames played out per peer (received or concealed), those received, those muted here.
        var audioFrames: [ParticipantID: Int] = [:]
        var receivedAudioFrames: [ParticipantID: Int] = [:]
        /// Received frames that were not the first of their packet (packets of 40 ms or more).
        var receivedAudioContinuations: [ParticipantID: Int] = [:]
        var mutedAudioFrames: [ParticipantID: Int] = [:]
        var videoFrames: [ParticipantID: Int] = [:]
        /// When each peer's frames were handed on, in order.
        var videoFramesAt: [ParticipantID: [Instant]] = [:]
        var keyFrameRequests = 0
        /// What the engine last said of `.videoWanted`: frames are made only while it is true.
        var videoWanted = true
        /// Each `.videoWanted` the engine said, with when.
        var videoWantedSaid: [(at: Instant, wanted: Bool)] = []
        /// Key frames owed to `.videoWanted` turning true (not the engine's requests).
        var keyFramesOnWanted = 0
        var keyFramesAskedAt: [Instant] = []
        /// Its driver cannot start ICE agents (say, out of descriptors).
        var iceUnavailable = false
        /// Its driver makes agents but does not say so (`iceStarted`) until the test releases
        /// `agentAnswersHeld` into `pending`.
        var holdsAgentAnswers = false
        var agentAnswersHeld: [CallEngine.Input] = []
        /// Its next ICE agent is `deaf`: it answers checks but never connects.
        var nextAgentIsDeaf = false
        var signalsSent = 0
        /// Sends no RTCP (its engine's are dropped): as browsers and some WebRTC stacks at first.
        var withholdsRTCP = false
        /// Transport feedback messages sent to each peer (read from the SRTCP header, which is clear).
        var transportFeedbackSent: [ParticipantID: Int] = [:]
        /// Sends a 20 ms audio frame this often while in the room (nil: no audio).
        var sendsAudio = false
        var nextAudioAt: Instant?
        /// What each of its audio frames holds: Opus's 20 ms silence frame (RFC 6716 TOC 0xF8).
        var audioPayload: [UInt8] = [0xF8, 0xFF, 0xFE]
        /// How often: the payload's own length.
        var audioInterval: Duration = .milliseconds(20)
        var pending: [CallEngine.Input] = []
        /// Sends a made-up 3-packet VP8 frame every 66 ms while in the room.
        var sendsVideo = false
        var nextVideoAt: Instant?
        var videoFramesSent = 0
        /// What the engine asked of the video encoder (`.videoBitrate`).
        var videoBitrates: [(at: Instant, kbps: Int)] = []
        /// Sends layered frames sized to the encoder target instead (SimulatedCall+Layers.swift).
        var layeredVideo: LayeredVideoSource?
        /// The small encoding while the engine asks for one (`.smallVideoBitrate`), made like
        /// `layeredVideo`; what it was asked, nil for "stop"; its key-frame requests.
        var smallVideo: LayeredVideoSource?
        var smallVideoBitrates: [(at: Instant, kbps: Int?)] = []
        var smallKeyFrameRequests = 0
        /// The engine's notes (human lines that are not events).
        var notes: [CallNote] = []
        /// Peers that said `bye` over their link.
        var goodbyes: [ParticipantID] = []
        /// A driver whose small encoder will not start: it answers `.smallVideoUnavailable`.
        var smallEncoderFails = false
        /// How long a small encoder takes to give its first frame once asked (a real one: made,
        /// and a key frame encoded, on another thread); when the one asked for gives frames.
        var smallEncoderStartsAfter: Duration = .zero
        var smallVideoFrom: Instant?

        /// A frame the assembler takes as VP8 (a key frame every 30th: bit 0 of the tag clear).
        func nextVideoFrame() -> [UInt8] {
            defer { videoFramesSent += 1 }
            let key = videoFramesSent % 30 == 0
            return [key ? 0x10 : 0x11] + [UInt8](repeating: UInt8(truncatingIfNeeded: videoFramesSent), count: 2_999)
        }

        init(id: ParticipantID, name: String, role: Role, engine: CallEngine, address: String) {
            self.id = id
            self.name = name
            self.role = role
            self.engine = engine
            self.address = address
        }

        func connected(to other: Participant) -> Bool { engine.isConnected(other.id) }

        var connectedEvents: [CallEvent.PeerConnected] {
            events.compactMap { if case .peerConnected(let info) = $0.event { info } else { nil } }
        }

        var disconnections: [(peer: ParticipantID, code: DisconnectCode)] {
            events.compactMap { if case .peerDisconnected(let d) = $0.event { (d.peer.id, d.reason.code) } else { nil } }
        }

        var chats: [String] { events.compactMap { if case .chat(_, let text) = $0.event { text } else { nil } } }
    }
}
