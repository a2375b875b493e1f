import ConfCore
import ConfWire

/// Our camera off and on (`camera off`), and a peer's video hidden here (`hide ann`). Both travel
/// in the control channel's state message (`video_muted`, `wants_video`); the sender acts on
/// them: no video at all while its camera is off, none on a link whose peer hides it, and a key
/// frame first when it starts again (the peer missed the frames in between).
extension CallEngine {
    func setVideoMuted(_ muted: Bool) -> Refusal? {
        guard configuration.sendsVideo else { return .sendsNoVideo }
        guard muted != videoMuted else { return nil }
        videoMuted = muted
        outputs.append(.event(.camera(on: !muted)))
        for link in linksInOrder {
            if muted { stopVideo(on: link) } else { link.forwarding.waitForKeyFrame() }
            if link.controlOpen { sendState(to: link) }
        }
        if !muted {  // one key frame of each encoding serves every link
            outputs.append(.keyFrameRequested)
            if outgoingVideo.smallAsked != nil { outputs.append(.smallKeyFrameRequested) }
        }
        return nil
    }

    func setVideoHidden(_ id: ParticipantID, _ hidden: Bool) -> Refusal? {
        guard let link = peerSlots[id]?.link, link.phase == .connected else { return .notConnected(id) }
        guard hidden != link.hidesPeerVideo else { return nil }
        link.hidesPeerVideo = hidden
        outputs.append(.event(.peerVideoHidden(link.peer, hidden: hidden)))
        if link.controlOpen { sendState(to: link) }
        return nil
    }

    /// What a view marks on a peer's tile: its microphone and camera as it told us, whether we
    /// hide its video (a badge rather than its last picture), whether it is talking.
    public struct PeerMarks: Equatable, Sendable {
        public var muted = false
        public var cameraOff = false
        public var hidden = false
        public var talking = false

        public init(muted: Bool = false, cameraOff: Bool = false, hidden: Bool = false, talking: Bool = false) {
            (self.muted, self.cameraOff, self.hidden, self.talking) = (muted, cameraOff, hidden, talking)
        }

        /// Why a view shows no picture instead of the last one, if so: "camera off" or "hidden".
        public var videoBadge: String? { cameraOff ? "camera off" : hidden ? "hidden" : nil }

        /// The badges a view shows, in this order.
        public var badges: [String] { (muted ? ["muted"] : []) + (videoBadge.map { [$0] } ?? []) }
    }

    /// The marks of participant `id`'s tile (none for nobody connected by that id).
    public func marks(of id: ParticipantID) -> PeerMarks {
        guard let link = peerSlots[id]?.link else { return PeerMarks() }
        return PeerMarks(muted: link.remoteAudioMuted, cameraOff: link.remoteVideoMuted, hidden: link.hidesPeerVideo,
                         talking: link.talking.isTalking)
    }

    /// Our own tile's marks: our microphone and camera, whether we are talking.
    public var ownMarks: PeerMarks {
        PeerMarks(muted: audioMuted, cameraOff: videoMuted, talking: selfTalking.isTalking)
    }

    /// The peer's `wants_video`: it hides our video, or shows it again.
    func peerWantsVideo(_ wants: Bool, on link: Link) {
        guard wants == link.peerHidesOurVideo else { return }
        link.peerHidesOurVideo = !wants
        if wants { startVideoAgain(on: link) } else { stopVideo(on: link) }
    }

    /// What waits to go is dropped: it would only delay the link's audio.
    private func stopVideo(on link: Link) {
        link.congestion.dropQueued(.video)
        link.congestion.dropQueued(.retransmission)
    }

    private func startVideoAgain(on link: Link) {
        guard !videoMuted else { return }
        link.forwarding.waitForKeyFrame()
        outputs.append(keyFrameRequest(for: link))
    }
}
