import ConfCall
import ConfCore
import ConfIO
import Dispatch
import ConfMedia
import ConfSession
import ConfWire

/// A participant's video devices and codec: one source and one VP8 encoder at the room's
/// resolution whatever the number of peers (the engine packetises once and sends per peer); per
/// peer, a decoder and the recording.
///
/// Threading: the event loop thread only, driven by `tick(now:links:)`.
final class VideoPipeline {
    enum Source: Equatable {
        case none, pattern
        /// A V4L2 device, like /dev/video0.
        case camera(String)
    }

    struct Settings {
        var source = Source.none
        var framesPerSecond = 15
        var bitrateKbps = 600
        var enabled = true
    }

    private let settings: Settings
    private let reporter: EventReporter
    private let encoder: BackgroundEncoder?
    private let loop: EventLoop
    /// An encoded frame back from the encoder's queue, handed on at the next tick: (data, when taken).
    private var encoded: (data: [UInt8], captured: Instant)?
    /// Each encoded frame, with when its picture was taken: for the engine to send.
    var onEncoded: (([UInt8], Instant) -> Void)?
    private var decoders: [ParticipantID: VP8Decoder] = [:]
    /// Each peer's newest decoded picture, for the terminal view.
    private(set) var pictures: [ParticipantID: VideoFrame] = [:]
    private var encoding = false
    private let pattern: TestPatternSource?
    private var camera: V4L2Camera?
    /// The camera's newest picture, encoded at the next frame time.
    private var latest: VideoFrame?
    private var nextFrameAt: Instant?
    private var forceKeyFrame = false
    /// Where received frames are also recorded (`--record`).
    var recordings: Recordings?

    init(settings: Settings, sends: Bool, resolution: Resolution, loop: EventLoop, reporter: EventReporter) throws(CommandFailure) {
        self.settings = settings
        self.reporter = reporter
        self.loop = loop
        let (width, height) = resolution.size
        guard sends && settings.enabled && settings.source != .none else {
            encoder = nil
            pattern = nil
            return
        }
        do {
            encoder = BackgroundEncoder(try VP8Encoder(width: width, height: height, bitrateKbps: settings.bitrateKbps,
                                                       framesPerSecond: settings.framesPerSecond))
        } catch {
            throw CommandFailure(.failure, code: "vp8", "cannot start the video encoder: \(error)")
        }
        if case .camera(let path) = settings.source {
            pattern = nil
            do {
                let camera = try V4L2Camera(loop: loop, path: path, width: width, height: height, framesPerSecond: settings.framesPerSecond)
                camera.onFrame = { [weak self] frame in self?.latest = frame }
                camera.onLost = { [weak self] in
                    self?.reporter.emit(.deviceLost(.camera))
                    self?.camera = nil
                    self?.latest = nil
                }
                self.camera = camera
            } catch {
                throw CommandFailure(.failure, code: "no-camera", "--video-source v4l2:\(path): \(error) — check the device with v4l2-ctl --list-devices")
            }
        } else {
            pattern = TestPatternSource(width: width, height: height)
        }
    }

    /// A peer asked for a key frame (PLI).
    func keyFrameRequested() { forceKeyFrame = true }

    /// Hands the encoder the next picture when one is due; `encoded` frames go to `onEncoded` on a later tick.
    func tick(now: Instant) {
        guard settings.enabled, let encoder else { return }
        if let (data, captured) = encoded {
            encoded = nil
            onEncoded?(data, captured)
        }
        let interval = Duration.milliseconds(1000 / Int64(settings.framesPerSecond))
        var due = nextFrameAt ?? now
        guard now >= due else { return }
        if now.since(due) > .milliseconds(500) { due = now }
        while due <= now { due = due + interval }
        nextFrameAt = due
        // One frame at a time: while the encoder is busy, a due frame is skipped, not queued.
        guard !encoding, let picture = pattern?.nextFrame() ?? latest else { return }
        let key = forceKeyFrame
        forceKeyFrame = false
        encoding = true
        let pipeline = Unchecked(self)
        encoder.encode(picture, keyFrame: key) { [loop] data in
            loop.invoke {
                pipeline.value.encoding = false
                if let data { pipeline.value.encoded = (data, now) }
            }
        }
    }

    /// A peer's complete frame: decoded (kept for the terminal view) and recorded. False when it
    /// could not be decoded (the engine then asks the peer for a key frame).
    func received(_ frame: VP8FrameAssembler.Frame, ssrc: UInt32, from peer: Participant, at: Instant) -> Bool {
        guard settings.enabled else { return true }
        let decoder = decoders[peer.id] ?? (try? VP8Decoder())
        decoders[peer.id] = decoder
        guard let picture = decoder?.decode(frame.data) else { return false }
        pictures[peer.id] = picture
        recordings?.video(frame.data, rtpTimestamp: frame.timestamp, ssrc: ssrc, from: peer, at: at)
        return true
    }

    /// The peer left: its decoder and picture go (a restart keeps them).
    func peerLeft(_ id: ParticipantID) {
        decoders[id] = nil
        pictures[id] = nil
    }

    func close() {
        camera?.close()
    }
}

/// The VP8 encoder on its own serial queue, so that encoding (milliseconds a frame) never holds up
/// the event loop, where audio is played out and packets are moved (DESIGN.md: capture and
/// encoding of video run on their own threads). The encoder is only touched on `queue`.
final class BackgroundEncoder: @unchecked Sendable {
    private let encoder: VP8Encoder
    private let queue = DispatchQueue(label: "conf.video.encoder")

    init(_ encoder: VP8Encoder) { self.encoder = encoder }

    /// Encodes on the queue; `done` gets the frame's bytes (nil when dropped or failed), on the queue.
    func encode(_ frame: VideoFrame, keyFrame: Bool, done: @escaping @Sendable ([UInt8]?) -> Void) {
        queue.async { [self] in
            done((try? self.encoder.encode(frame, keyFrame: keyFrame))??.data)
        }
    }
}

/// Carries a loop-confined object through a @Sendable closure that runs back on the loop thread.
struct Unchecked<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
