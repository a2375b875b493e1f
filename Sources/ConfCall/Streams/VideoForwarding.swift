import ConfCore
import ConfWire

/// What one link is sent of our video, frame by frame: which of our two encodings
/// (`LinkEncodingChoice`), which temporal layers of it (`LinkLayerPolicy` from the link's budget,
/// `TemporalLayerSelector` for each frame), whether it waits for a key frame (after a pause,
/// the camera off, a hide, a move to the other encoding), and picture ids without gaps for the
/// frames it gets (`VP8PictureIDRewriter`). Pure; one per link.
///
/// A move to the other encoding may keep sending the old one until the new one's first key
/// frame (`switchingFrom`): stopping at once would leave the link a quarter of a second without
/// a frame at each switch.
struct VideoForwarding: Sendable {
    private(set) var layerSelector = TemporalLayerSelector(maximumLayer: 2)
    private(set) var layerPolicy = LinkLayerPolicy()
    private(set) var encodingChoice = LinkEncodingChoice()
    private var pictureIDs = VP8PictureIDRewriter()
    /// Video starts again at a key frame of the link's encoding (it missed the frames in between).
    private(set) var waitsForKeyFrame = false
    /// While it waits for the first key frame of the encoding it moves to, the one it is still
    /// sent; nil when not moving.
    private(set) var switchingFrom: VideoEncoding?
    /// When the last key frame sent on this link is due to leave its pacer (`CallEngine.keyFrameAnswersPictureLoss`).
    private(set) var keyFrameSentAt: Instant?

    /// A key frame went to the link's pacer, due out at `leaving`.
    mutating func sentKeyFrame(leaving: Instant) {
        keyFrameSentAt = leaving
    }

    /// No video at all: the link's budget cannot carry its encoding's base layer.
    var paused: Bool { layerPolicy.paused }

    /// The encoding the link will be on (once its key frame comes).
    var chosenEncoding: VideoEncoding { encodingChoice.encoding }

    /// The encoding whose frames the link is sent now.
    var encoding: VideoEncoding { switchingFrom ?? encodingChoice.encoding }

    /// Whether frames of `encoding` may go to the link: the one it is on, or the one it is leaving.
    func mayGet(_ encoding: VideoEncoding) -> Bool {
        encodingChoice.encoding == encoding || switchingFrom == encoding
    }

    /// The temporal layers the link is sent now out of `encoded`: 0 while paused.
    func forwardedLayers(encoded: Int) -> Int {
        paused ? 0 : min(encoded, Int(layerSelector.currentLayer) + 1)
    }

    /// Video starts again at a key frame of the link's encoding, and of no other.
    mutating func waitForKeyFrame() {
        waitsForKeyFrame = true
        switchingFrom = nil
    }

    /// Whether the link gets this frame of `encoding`: not while paused, from a key frame after
    /// a wait, then as its layer selector says. A link moving to the other encoding is sent the
    /// one it had until the new one's first key frame, and switches there with a new selector.
    mutating func forwards(_ frame: VP8FrameLayer, of encoding: VideoEncoding) -> Bool {
        guard !paused else { return false }
        if switchingFrom == encoding { return layerSelector.forward(frame) }
        if waitsForKeyFrame {
            guard frame.keyFrame else { return false }
            waitsForKeyFrame = false
            if switchingFrom != nil {
                switchingFrom = nil
                startAfresh()
            }
        }
        return layerSelector.forward(frame)
    }

    /// The link's budget now, against an encoder making `encoderKbps` in `layers` layers: its
    /// layers follow, and it says when video pauses or resumes (at a key frame: the link missed
    /// the frames in between).
    mutating func judge(budgetKbps: Int, encoderKbps: Int, layers: Int, now: Instant) -> LinkLayerPolicy.Change? {
        let change = layerPolicy.update(budgetKbps: budgetKbps, encoderKbps: encoderKbps, layers: layers, now: now)
        layerSelector.maximumLayer = layerPolicy.maximumLayer
        if change == .resumed { waitForKeyFrame() }
        return change
    }

    /// The encoding the link's budget calls for, when it changes (`LinkEncodingChoice`).
    mutating func chooseEncoding(budgetKbps: Int, fullNeedsKbps: Int, now: Instant) -> VideoEncoding? {
        encodingChoice.update(budgetKbps: budgetKbps, fullNeedsKbps: fullNeedsKbps, now: now)
    }

    /// How a move to another encoding went.
    enum Move: Equatable { case backBeforeTheKeyFrame, keepsTheOldMeanwhile, startsAfresh }

    /// The link is sent `encoding` from its next key frame. `keepingTheOld`, it is sent the one
    /// it had until then, at the layers it had (not while it waits for a key frame anyway); back
    /// before that key frame came, it simply stays. Otherwise its layers are judged afresh
    /// against the new encoding's rate, and what was queued of the old one should go.
    mutating func move(to encoding: VideoEncoding, keepingTheOld: Bool) -> Move {
        if switchingFrom == encoding {
            switchingFrom = nil
            waitsForKeyFrame = false
            return .backBeforeTheKeyFrame
        }
        let keeps = keepingTheOld && !waitsForKeyFrame
        waitForKeyFrame()
        guard keeps else {
            startAfresh()
            return .startsAfresh
        }
        switchingFrom = encoding == .small ? .full : .small
        return .keepsTheOldMeanwhile
    }

    /// A fresh choice of encoding (no small one after all: then `move(to: .full, ...)`).
    mutating func forgetTheEncodingChoice() {
        encodingChoice = LinkEncodingChoice()
    }

    /// A frame's packets as this link gets them: picture ids without gaps for the frames it gets.
    mutating func numbered(_ payloads: [[UInt8]]) -> [[UInt8]] {
        pictureIDs.rewrite(payloads)
    }

    /// A new selector at the layers the link had, and its budget judged afresh.
    private mutating func startAfresh() {
        layerSelector = TemporalLayerSelector(maximumLayer: layerSelector.maximumLayer)
        layerPolicy = LinkLayerPolicy()
    }
}
