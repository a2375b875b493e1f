import ConfCore
import ConfMedia
import ConfWire

/// A participant's video between its backends and the engine: one source and one VP8 encoder at
/// the room's resolution whatever the number of peers (the engine packetises once and sends per
/// peer); per peer, a decoder, its newest picture and the recording. While the engine asks for
/// it, a second, small encoding (half the width and height) of the same pictures for the links
/// that cannot carry half the first's frame rate (`VideoEncoding`).
///
/// A camera that goes away is reported once and nothing more is sent.
/// Threading: the event loop thread only, driven by `tick(now:)`; encoding runs on the encoder's
/// queue and comes back through `hop` (the event loop's `invoke`).
public final class VideoPipeline {
    private var source: (any VideoSource)?
    private let main: EncoderSlot?
    private var small: EncoderSlot?
    private let interval: Duration
    private let framesPerSecond: Int
    private let hop: @Sendable (@escaping @Sendable () -> Void) -> Void
    private var nextFrameAt: Instant?
    /// A picture fell due while the encoder was busy: the newest one goes as soon as it is free.
    private var pictureOwed = false
    private var decoders: [ParticipantID: VP8Decoder] = [:]
    private let recordings: Recordings?
    /// Each encoded frame's bytes, with when its picture was taken: for the engine to send.
    public var onEncoded: (([UInt8], Instant) -> Void)?
    /// Each encoded frame with its temporal layer (layer, sync, key frame), with when its picture
    /// was taken: for an engine that sends each link only the layers it can carry. Called after
    /// `onEncoded`, for the same frames.
    public var onEncodedFrame: ((VP8EncodedFrame, Instant) -> Void)?
    /// The same for the small encoding's frames.
    public var onSmallEncodedFrame: ((VP8EncodedFrame, Instant) -> Void)?
    /// A backend stopped working; the call goes on without it.
    public var onIssue: (MediaIssue) -> Void = { _ in }
    /// Each peer's newest decoded picture, for the terminal view and the window.
    public private(set) var pictures: [ParticipantID: VideoFrame] = [:]
    /// The newest picture we sent, for the window's own small picture; nil while the camera is off.
    public private(set) var ownPicture: VideoFrame?

    /// `source` and `encoder` are nil when we send no video; `recordings` get every peer's frames.
    public init(source: (any VideoSource)?, encoder: VP8Encoder?, framesPerSecond: Int, recordings: Recordings?,
                hop: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) {
        self.source = encoder == nil ? nil : source
        main = encoder.map { EncoderSlot(BackgroundEncoder($0)) }
        interval = .milliseconds(1000 / Int64(max(1, framesPerSecond)))
        self.framesPerSecond = max(1, framesPerSecond)
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
        guard let main else {
            newSource.close()
            return false
        }
        source?.close()
        source = newSource
        main.forceKeyFrame = true
        small?.forceKeyFrame = true
        nextFrameAt = nil
        return true
    }

    /// The camera is off (`camera off`): no picture is taken or encoded; the next one after is a key frame.
    public var paused = false {
        didSet {
            if !paused { for slot in [main, small] { slot?.forceKeyFrame = true } }
            ownPicture = nil
        }
    }

    /// Whether anyone gets our video (the engine's `.videoWanted`). While not, pictures are still
    /// taken for our own view but not encoded; the first one encoded after is a key frame.
    public var encodes = true {
        didSet {
            if encodes && !oldValue { for slot in [main, small] { slot?.forceKeyFrame = true } }
        }
    }

    /// A peer asked for a key frame (PLI).
    public func keyFrameRequested() { main?.forceKeyFrame = true }

    /// A new total target for the encoder (all layers), e.g. from the congestion estimate; it
    /// takes effect from a frame encoded after this call.
    public func setBitrate(kbps: Int) { main?.encoder.setBitrate(kbps: kbps) }

    /// The full encoding's picture size; nil without video.
    public var fullPictureSize: (width: Int, height: Int)? { main.map { ($0.encoder.width, $0.encoder.height) } }

    /// Whether a small encoding can be made: we send video, at a size whose halves VP8 can take.
    public var makesSmallEncoding: Bool { main.map { $0.encoder.width >= 64 && $0.encoder.height >= 64 } ?? false }

    /// Starts the small encoding at `kbps` (its first frame a key frame) or gives it a new target;
    /// nil stops it. False when it was asked for and cannot be made (the engine is told:
    /// `.smallVideoUnavailable`, and pauses the weak links instead).
    public func setSmallBitrate(kbps: Int?) -> Bool {
        guard let kbps else {
            small = nil
            return true
        }
        guard let main, makesSmallEncoding else { return false }
        if let small {
            small.encoder.setBitrate(kbps: kbps)
            return true
        }
        // Even sizes: 4:2:0 chroma is half of each.
        guard let made = try? VP8Encoder(width: main.encoder.width / 4 * 2, height: main.encoder.height / 4 * 2, bitrateKbps: kbps,
                                         framesPerSecond: framesPerSecond, temporalLayers: 3) else { return false }
        small = EncoderSlot(BackgroundEncoder(made))
        small?.forceKeyFrame = true
        return true
    }

    public func smallKeyFrameRequested() { small?.forceKeyFrame = true }

    /// Hands the encoder the next picture when one is due; `encoded` frames go to `onEncoded` on a later tick.
    public func tick(now: Instant) {
        guard let main, let source, !paused else { return }
        if source.isLost {
            onIssue(.cameraLost)
            source.close()
            self.source = nil
            ownPicture = nil
            return
        }
        if let (frame, captured) = main.takeEncoded() {
            onEncoded?(frame.data, captured)
            onEncodedFrame?(frame, captured)
        }
        if let (frame, captured) = small?.takeEncoded() { onSmallEncodedFrame?(frame, captured) }
        var due = nextFrameAt ?? now
        if now >= due {
            if now.since(due) > .milliseconds(500) { due = now }
            while due <= now { due = due + interval }
            nextFrameAt = due
            pictureOwed = true
        }
        // One frame at a time, and at most one owed: a picture that falls due while the encoder
        // is busy is taken when it is free (the newest then), not skipped, so an encode a few ms
        // over the frame interval costs that picture's delay, not the picture. Several due while
        // busy are one: the encoder is never queued behind.
        guard pictureOwed, !main.busy, var picture = source.newestPicture() else { return }
        pictureOwed = false
        // A camera swapped in after a clip of another shape: cropped to the shape being sent.
        if picture.width != main.encoder.width || picture.height != main.encoder.height {
            picture = PixelConversion.scaled(picture, width: main.encoder.width, height: main.encoder.height)
        }
        ownPicture = picture
        guard encodes else { return }
        // The small encoding scales the picture on its own queue.
        small?.encode(picture, taken: now, hop: hop)
        main.encode(picture, taken: now, hop: hop)
    }

    /// When `tick(now:)` should run next: `now` (the caller's next short tick) while a frame is
    /// with the encoder or ready to hand on, else when the next picture is due; nil when nothing
    /// is sent.
    public func nextTickDue(now: Instant) -> Instant? {
        guard let main, source != nil, !paused else { return nil }
        if main.pending || small?.pending == true { return now }  // an owed picture goes at one of these ticks
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

/// One encoder as the pipeline drives it, on the event loop thread: at most one picture with it
/// (the pipeline owes it the next one while it is busy; nothing queues), the frame it gave back
/// until the next tick hands it on, and whether the next one must be a key frame.
private final class EncoderSlot {
    let encoder: BackgroundEncoder
    var forceKeyFrame = false
    private(set) var busy = false
    /// A frame back from the encoder's queue, handed on at the next tick: (frame, when taken).
    private var encoded: (frame: VP8EncodedFrame, captured: Instant)?

    init(_ encoder: BackgroundEncoder) { self.encoder = encoder }

    /// Whether a frame is with the encoder or waits to be handed on.
    var pending: Bool { busy || encoded != nil }

    func encode(_ picture: VideoFrame, taken: Instant, hop: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) {
        guard !busy else { return }
        let key = forceKeyFrame
        forceKeyFrame = false
        busy = true
        let slot = Unchecked(self)
        // Not given the capture times (`VP8Encoder.encode(capturedAt:)`): with them a 4-party
        // call whose encoder skipped pictures sent 795 kbit/s against a 600 target (libvpx's
        // layered rate control re-estimating its frame rate as the spacing changed).
        encoder.encode(picture, keyFrame: key, capturedAt: nil) { frame in
            hop {
                slot.value.busy = false
                if let frame { slot.value.encoded = (frame, taken) }
            }
        }
    }

    /// The frame back from the encoder, once.
    func takeEncoded() -> (frame: VP8EncodedFrame, captured: Instant)? {
        defer { encoded = nil }
        return encoded
    }
}
