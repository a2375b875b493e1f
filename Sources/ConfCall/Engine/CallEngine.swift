import ConfCore
import ConfCrypto
import ConfSession
import ConfWire

/// One participant's call, sans-IO: the room's events and each link's packets go in with `now`;
/// what to do comes out of `pollOutput()`, and `nextDeadline()` says when to call
/// `handle(.timeout, now:)` next. The engine never reads a clock, opens a socket or starts a
/// thread; the driver (ConfDriver) owns the ICE agents, codecs and devices.
///
/// It runs the mesh's negotiation (ConfSession.Mesh), and per peer a `Link`: ICE as the
/// driver's agent reports it, DTLS and SRTP (through `LinkSecurity`), RTCP reports and round
/// trips, liveness, restarts with a growing delay, the data channels (chat and conf's control
/// channel), the listen-only rule, and the RTP streams of audio and video.
///
/// Threading: none of its own; the owner calls it from one thread.
public final class CallEngine {
    public enum Input: Sendable {
        /// We are in the room as `you`, with these others already there.
        case joined(you: ParticipantID, role: Role, peers: [Participant])
        case peerJoined(Participant)
        case peerLeft(ParticipantID)
        /// A peer signal relayed by the rendezvous (offer, answer, candidate).
        case signal(from: ParticipantID, JSONValue)
        /// The driver made the ICE agent `startIce` asked for: the link's offer or answer, its
        /// candidates and its gathering, held until now, go out.
        case iceStarted(ParticipantID)
        /// The driver could not make the agent `startIce` asked for: the link fails now, and what
        /// it held (an offer or answer naming an agent that does not exist) never goes out.
        case iceUnavailable(ParticipantID, reason: String)
        case iceState(ParticipantID, IceState)
        case selectedPair(ParticipantID, CandidatePair)
        case localCandidate(ParticipantID, IceCandidate)
        case localGatheringDone(ParticipantID)
        /// A datagram from the peer's ICE transport (DTLS, SRTP or SRTCP).
        case datagram(from: ParticipantID, [UInt8])
        /// One encoded 20 ms Opus frame to send (nil while muted: nothing goes out) and the
        /// microphone's level in -dBov (127 for silence), which drives our own `talking`.
        case audioFrame(opus: [UInt8]?, level: UInt8)
        /// One encoded VP8 frame, taken at `captured`.
        case videoFrame([UInt8], captured: Instant)
        /// One encoded VP8 frame of a temporally layered stream, with its place in the pattern:
        /// each link is sent the layers its estimate carries.
        case layeredVideoFrame([UInt8], layer: VP8FrameLayer, captured: Instant)
        /// The same, of the small encoding (`VideoEncoding.small`), while one was asked for.
        case smallVideoFrame([UInt8], layer: VP8FrameLayer, captured: Instant)
        /// The driver could not make the small encoding it was asked for: its links go back to full.
        case smallVideoUnavailable
        /// What the driver played of a peer, as a level in -dBov: drives the peer's `talking`.
        case played(ParticipantID, level: UInt8)
        /// The driver could not decode a peer's video frame: a key frame is asked for.
        case videoUndecodable(ParticipantID)
        /// An address of this machine came or went: every link is set up again on the new ones.
        case networkChanged
        /// Chat to everyone in the room: at once where a chat channel is open, else when it opens
        /// (with nobody here yet, to the first peer whose channel opens). Refused with
        /// `chatQueueFull` when `maxHeldChat` messages already wait.
        case say(String)
        case setAudioMuted(Bool)
        /// Stop (or resume) playing one participant here; they are not told.
        case setLocallyMuted(ParticipantID, Bool)
        /// Our camera off (true) or on again; refused with `sendsNoVideo` when we send none.
        case setVideoMuted(Bool)
        /// Stop (or resume) getting one participant's video; the peer is asked to stop sending it.
        case setVideoHidden(ParticipantID, Bool)
        /// Leaving: every link is closed (close_notify sent) and its ICE agent released.
        case leave
        case timeout
        /// The driver's timer fired this long after the time it was set for (sent when 10 ms or
        /// more): our own loop is held up (`LoopLateness`).
        case loopLate(by: Duration)
    }

    public enum IceState: Sendable, Equatable { case checking, connected, failed }

    /// Why `handle` did nothing with a command.
    public enum Refusal: Error, Equatable, Sendable {
        /// Nobody is connected by that id (a link to them exists for `setLocallyMuted`).
        case notConnected(ParticipantID)
        /// We send no video at all: a listener, or no camera.
        case sendsNoVideo
        /// Nobody is connected yet and `maxHeldChat` messages already wait.
        case chatQueueFull
    }

    public enum Output: Sendable {
        /// Start the ICE agent of a link with these local credentials; gathering waits for `gather`.
        /// Answer with `iceStarted` or `iceUnavailable`, at once or after the outputs already
        /// queued: the link's signals wait for the answer.
        /// With `relayOnly`, the agent should use TURN relay candidates alone, when the driver has
        /// a TURN server (`CallEngine.relayOnlyFromAttempt`).
        case startIce(ParticipantID, IceCredentials, controlling: Bool, relayOnly: Bool)
        case gather(ParticipantID)
        case setRemoteCredentials(ParticipantID, ufrag: String, pwd: String)
        case addRemoteCandidate(ParticipantID, IceCandidate)
        case remoteCandidatesDone(ParticipantID)
        /// Close the agent at once: no more checks toward the peer's candidates.
        case closeIce(ParticipantID)
        case transmit(ParticipantID, [UInt8])
        case signal(ParticipantID, JSONValue)
        case event(CallEvent)
        /// The peer said over conf-control that it is leaving (`bye`): it is gone, whether or not a
        /// rendezvous is left to say so.
        case peerSaidGoodbye(ParticipantID)
        /// A line for the person with no event (hints, what was ignored): the driver shows its
        /// `text` escaped.
        case note(CallNote)
        /// A peer's audio at its playout time: decode (or conceal) and play. `muted`: muted here.
        case audio(ParticipantID, ReceivedAudio, muted: Bool)
        /// A peer's complete VP8 frame, in order: decode and show or record.
        case video(ParticipantID, VP8FrameAssembler.Frame, ssrc: UInt32)
        /// A peer lost our video: the next frame should be a key frame.
        case keyFrameRequested
        /// The video encoder's new total target (all layers): the best link's video budget,
        /// capped by `videoBitrateKbps`. Given when it changes by more than 10 %, at most once a second.
        case videoBitrate(kbps: Int)
        /// Start the small encoding at this target (all layers), or give it a new one; nil: stop
        /// it, no link needs it. A small encoding starts with a key frame.
        case smallVideoBitrate(kbps: Int?)
        /// A link on the small encoding needs a key frame of it.
        case smallKeyFrameRequested
        /// Whether the encoder has anyone to encode for: false while every link is paused for
        /// bandwidth or hides our video (the camera's pictures are then for our own view only),
        /// true again when one is not (the first picture after is a key frame). Given when it
        /// changes; the encoder starts on.
        case videoWanted(Bool)
        /// Opus's new settings from the worst link: bitrate (16...64), in-band FEC, expected loss.
        case audioEncoding(bitrateKbps: Int, fec: Bool, expectedLossPercent: Int)
        /// Nobody connected within the connect timeout; `noPath` when some link found no network
        /// path, with what its candidates say of why.
        case callFailed(noPath: NoPathCause?)
    }

    public enum ReceivedAudio: Equatable, Sendable {
        case frame([UInt8])
        /// The next 20 ms of what the last `.frame` decoded to (its packet held several frames).
        case continuation
        /// Lost: conceal, with the next frame's payload for FEC when it is already here.
        case lost(next: [UInt8]?)
    }

    static let reportInterval: Duration = .milliseconds(500)
    static let restartDelay: Duration = .seconds(2)
    /// A link that keeps failing is set up again at most this many times in a row (2, 4, 8, 16 s
    /// apart), then left alone until the peer leaves and comes back.
    static let maxRestarts = 4
    public static let maxHeldChat = 100

    public var configuration: Configuration
    let security: any LinkSecurity
    let dataChannelFactory: (any DataChannelFactory)?
    var random: any RandomNumberGenerator

    var mesh: Mesh?
    var role = Role.publisher
    /// Our own id in the room, from `joined`.
    var me: ParticipantID?
    var roster: [ParticipantID: Participant] = [:]
    /// Each peer's link, and what outlives it: its set-up attempts and restarts.
    var peerSlots: [ParticipantID: PeerSlot] = [:]
    /// Every link there is, in no order: a view of `peerSlots`, nothing copied.
    var links: some Collection<Link> { peerSlots.values.lazy.compactMap(\.link) }
    var everConnected = false
    var sawNoPath: NoPathCause?
    var connectDeadline: Instant?
    var callFailedReported = false
    var isLeaving = false
    /// What `pollOutput` hands out, read from `outputsRead` on: cleared once all is read.
    var outputs: [Output] = []
    var outputsRead = 0
    /// Some association may hold output (`drainDataChannelsIfWaiting`).
    var dataChannelOutputMayWait = false
    /// The latest `now` given: what the mesh's link requests are stamped with.
    var now = Instant.zero

    public internal(set) var audioMuted = false
    public internal(set) var videoMuted = false
    var selfTalking = TalkingDetector()
    /// The microphone's last level, muted or not (dB below full scale): the call screen's meter.
    public internal(set) var ownLevel: UInt8?
    /// Our microphone's talking while muted (`talkingWhileMuted`), and when we last said so.
    var mutedTalking = TalkingDetector()
    var lastMutedTalkingHint: Instant?
    static let mutedTalkingHintInterval = Duration.seconds(15)
    /// `say` typed before any chat channel was open: sent to the first peer whose channel opens.
    var heldChat: [String] = []
    var nextStatsAt: Instant?
    /// Our video's packetisers, layers, media clock, the key frame new links wait for, and what
    /// the encoders were last asked.
    var outgoingVideo = OutgoingVideo()
    // Rates (CallEngine+Rates.swift): when they are looked at next, and what was last asked for.
    var nextRateUpdateAt: Instant?
    /// Which links share a queue (our uplink, presumed for those that get our video), and the one
    /// whose rate they send at.
    var sharedBottleneck = SharedBottleneck<ParticipantID>(presumed: true)
    var sharedLeast: ParticipantID?
    /// Which peers' packets queue together on their way to us: our downlink (CallEngine+DownlinkShare).
    var downlinkBottleneck = SharedBottleneck<ParticipantID>()
    var downlinkShared = false
    var loopLateness = LoopLateness()
    var audioEncodingAsked: (bitrateKbps: Int, fec: Bool, lossPercent: Int, at: Instant)?

    public init(configuration: Configuration, security: any LinkSecurity, dataChannels: (any DataChannelFactory)?,
                random: any RandomNumberGenerator) {
        self.configuration = configuration
        self.security = security
        dataChannelFactory = dataChannels
        self.random = random
    }

    // MARK: Driving

    /// Takes one input at `now`; what it causes comes out of `pollOutput()`. Returns why a
    /// command was refused (nothing changed), or nil.
    @discardableResult
    public func handle(_ input: Input, now: Instant) -> Refusal? {
        self.now = max(self.now, now)
        var refusal: Refusal?
        switch input {
        case .joined(let you, let role, let peers): joined(you: you, role: role, peers: peers, now: now)
        case .peerJoined(let peer): peerJoined(peer, now: now)
        case .peerLeft(let id): peerLeft(id, now: now)
        case .signal(let id, let payload): signal(from: id, payload, now: now)
        case .iceStarted(let id): iceStarted(id)
        case .iceUnavailable(let id, let reason): iceUnavailable(id, reason: reason, now: now)
        case .iceState(let id, let state):
            if let link = peerSlots[id]?.link { handle(.iceState(state), on: link, now: now) }
        case .selectedPair(let id, let pair): peerSlots[id]?.link?.selectedPair = pair
        case .localCandidate(let id, let candidate):
            peerSlots[id]?.link?.noteCandidate(candidate, local: true)
            mesh?.localCandidate(candidate, for: id)
            drainMesh(now: now)
        case .localGatheringDone(let id):
            mesh?.localGatheringDone(for: id)
            drainMesh(now: now)
        case .datagram(let id, let bytes):
            guard let link = peerSlots[id]?.link else { break }
            handle(.datagram(bytes, senderHeldUp: loopLateness.isHeldUp(now: now)), on: link, now: now)
            service(now: now, only: link)
            return nil
        case .audioFrame(let opus, let level): sendAudio(opus, level: level, now: now)
        case .videoFrame(let frame, let captured): sendVideo(frame, layer: nil, captured: captured, now: now)
        case .layeredVideoFrame(let frame, let layer, let captured): sendVideo(frame, layer: layer, captured: captured, now: now)
        case .smallVideoFrame(let frame, let layer, let captured): sendVideo(frame, layer: layer, encoding: .small, captured: captured, now: now)
        case .smallVideoUnavailable: smallVideoUnavailable(now: now)
        case .played(let id, let level):
            peerSlots[id]?.link?.level = level
            guard let link = peerSlots[id]?.link, let change = link.talking.update(level: level, now: now) else { break }
            outputs.append(.event(.talking(.peer(link.peer), talking: change)))
        case .videoUndecodable(let id):
            if let link = peerSlots[id]?.link { requestKeyFrame(on: link, now: now) }
        case .networkChanged: networkChanged(now: now)
        case .say(let text): refusal = say(text)
        case .setAudioMuted(let muted): setAudioMuted(muted)
        case .setLocallyMuted(let id, let muted): refusal = setLocallyMuted(id, muted)
        case .setVideoMuted(let muted): refusal = setVideoMuted(muted)
        case .setVideoHidden(let id, let hidden): refusal = setVideoHidden(id, hidden)
        case .leave: leave()
        case .timeout: break
        case .loopLate(let lateness):
            loopLateness.record(lateness, now: now)
            return nil  // nothing falls due for it; the tick that measured it services the engine
        }
        service(now: now)
        return refusal
    }

    /// The next output, or nil when there is nothing to do until `nextDeadline()` or an input.
    public func pollOutput() -> Output? {
        // The data channels (usrsctp, which also runs on its own timers) are asked only once
        // what is queued has gone: what they add comes after it either way.
        if outputsRead == outputs.count {
            outputs.removeAll(keepingCapacity: true)
            outputsRead = 0
            drainDataChannelsIfWaiting()
        }
        guard outputsRead < outputs.count else {
            assert(links.allSatisfy { $0.outbox.isEmpty }, "a link's datagrams were not passed on (CallEngine.flush)")
            return nil
        }
        defer { outputsRead += 1 }
        return outputs[outputsRead]
    }

    /// When `handle(.timeout, now:)` is due next; nil when nothing is scheduled.
    public func nextDeadline() -> Instant? {
        // Runs every 5 ms and after each input: no arrays built.
        var earliest = EarliestDeadline()
        for slot in peerSlots.values {  // the earliest: any order
            earliest.consider(slot.restartDue)
            if let link = slot.link { considerDeadlines(of: link, in: &earliest) }
        }
        if !everConnected { earliest.consider(connectDeadline) }
        earliest.consider(nextStatsAt)
        if hasConnectedPeer { earliest.consider(nextRateUpdateAt) }
        earliest.consider(outgoingVideo.newLinkKeyFrameDue)
        return earliest.instant
    }

    // MARK: Queries for the driver

    /// The participant with this id, while it is in the room.
    public func participant(_ id: ParticipantID) -> Participant? { roster[id] }

    public var connectedPeers: [ParticipantID] { linksInOrder.filter { $0.phase == .connected }.map(\.id) }

    var hasConnectedPeer: Bool { links.contains { $0.phase == .connected } }

    public func isConnected(_ id: ParticipantID) -> Bool { peerSlots[id]?.link?.phase == .connected }
}
