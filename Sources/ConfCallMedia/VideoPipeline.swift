import ConfCore
import ConfMedia
import ConfWire

/// A participant's video between its backends and the engine: one source and one VP8 encoder at
/// the room's resolution whatever the number of peers (the engine packetises once and sends per
/// peer); per peer, a decoder, its newest picture and the recording.
///
/// A camera that goes away is reported once and nothing more is sent.
/// Threading: the event loop thread only, driven by `tick(now:)`; encoding runs on the encoder's
/// queue and comes back through `hop` (the event loop's `invoke`).
public final class VideoPipeline {
    private var source: (any VideoSource)?
    private let encoder: BackgroundEncoder?
    private let interval: Duration
    private let hop: @Sendable (@escaping @Sendable () -> Void) -> Void
    /// An encoded frame back from the encoder's queue, handed on at the next tick: (frame, when taken).
    private var encoded: (frame: VP8EncodedFrame, captured: Instant)?
    private var encoding = false
    private var nextFrameAt: Instant?
    private var forceKeyFrame = false
    private var decoders: [ParticipantID: VP8Decoder] = [:]
    private let recordings: Recordings?
    /// Each encoded frame's bytes, with when its picture was taken: for the engine to send.
    public var onEncoded: (([UInt8], Instant) -> Void)?
    /// Each encoded frame with its temporal layer (layer, sync, key frame), with when its picture
    /// was taken: for an engine that sends each link only the layers it can carry. Called after
    /// `onEncoded`, for the same frames.
    public var onEncodedFrame: ((VP8EncodedFrame, Instant) -> Void)?
    /// A backend stopped working; the call goes on without it.
    public var onIssue: (MediaIssue) -> Void = { _ in }
    /// Each peer's newest decoded picture, for the terminal view.
    public private(set) var pictures: [ParticipantID: VideoFrame] = [:]

    /// `source` and `encoder` are nil when we send no video; `recordings` get every peer's frames.
    public init(source: (any VideoSource)?, encoder: VP8Encoder?, framesPerSecond: Int, recordings: Recordings?,
                hop: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) {
        self.source = encoder == nil ? nil : source
        self.encoder = encoder.map(BackgroundEncoder.init)
        interval = .milliseconds(1000 / Int64(max(1, framesPerSecond)))
        self.recordings = recordings
        self.hop = hop
    }

    /// Whether we send video at all.
    public var sends: Bool { source != nil }

    /// What we send from now (a camera, a pattern...), nil when nothing.
    public var currentSource: (any VideoSource)? { source }

    /// Sends from `newSource` from the next picture on, a key frame first (`camera next`): the
    /// encoder, its layers and every link go on; the old source is closed. False when we send
    /// no video at all (no encoder): the new source is closed.
    @discardableResult
    public func replaceSource(with newSource: any VideoSource) -> Bool {
        guard encoder != nil else {
            newSource.close()
            return false
        }
        source?.close()
        source = newSource
        forceKeyFrame = true
        nextFrameAt = nil
        return true
    }

    /// The camera is off (`camera off`): no picture is taken or encoded; the next one after is a key frame.
    public var paused = false {
        didSet { if !paused { forceKeyFrame = true } }
    }

    /// A peer asked for a key frame (PLI).
    public func keyFrameRequested() { forceKeyFrame = true }

    /// A new total target for the encoder (all layers), e.g. from the congestion estimate; it
    /// takes effect from a frame encoded after this call.
    public func setBitrate(kbps: Int) { encoder?.setBitrate(kbps: kbps) }

    /// Hands the encoder the next picture when one is due; `encoded` frames go to `onEncoded` on a later tick.
    public func tick(now: Instant) {
        guard let encoder, let source, !paused else { return }
        if source.isLost {
            onIssue(.cameraLost)
            source.close()
            self.source = nil
            return
        }
        if let (frame, captured) = encoded {
            encoded = nil
            onEncoded?(frame.data, captured)
            onEncodedFrame?(frame, captured)
        }
        var due = nextFrameAt ?? now
        guard now >= due else { return }
        if now.since(due) > .milliseconds(500) { due = now }
        while due <= now { due = due + interval }
        nextFrameAt = due
        // One frame at a time: while the encoder is busy, a due frame is skipped, not queued.
        guard !encoding, let picture = source.newestPicture() else { return }
        let key = forceKeyFrame
        forceKeyFrame = false
        encoding = true
        let pipeline = Unchecked(self)
        encoder.encode(picture, keyFrame: key) { [hop] frame in
            hop {
                pipeline.value.encoding = false
                if let frame { pipeline.value.encoded = (frame, now) }
            }
        }
    }

    /// When `tick(now:)` should run next: `now` (the caller's next short tick) while a frame is
    /// with the encoder or ready to hand on, else when the next picture is due; nil when nothing
    /// is sent.
    public func nextTickDue(now: Instant) -> Instant? {
        guard encoder != nil, source != nil, !paused else { return nil }
        if encoded != nil || encoding { return now }
        return nextFrameAt ?? now
    }

    /// A peer's complete frame: decoded (kept for the terminal view) and recorded. False when it
    /// could not be decoded (the engine then asks the peer for a key frame).
    public func received(_ frame: VP8FrameAssembler.Frame, ssrc: UInt32, from peer: Participant, at: Instant) -> Bool {
        let decoder = decoders[peer.id] ?? (try? VP8Decoder())
        decoders[peer.id] = decoder
        guard let picture = decoder?.decode(frame.data) else { return false }
        pictures[peer.id] = picture
        if let issue = recordings?.video(frame.data, rtpTimestamp: frame.timestamp, ssrc: ssrc, from: peer, at: at) { onIssue(issue) }
        return true
    }

    /// The peer left: its decoder, picture and recording go (a restart keeps them).
    public func peerLeft(_ id: ParticipantID) {
        decoders[id] = nil
        pictures[id] = nil
        recordings?.peerLeft(id)
    }

    public func close() {
        source?.close()
        source = nil
        recordings?.close()
    }
}
