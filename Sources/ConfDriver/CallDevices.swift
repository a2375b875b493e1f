import ConfCall
import ConfCallMedia
import ConfCore
import ConfIO
import ConfMedia
import ConfWire

/// The participant's media in the call: the audio pipeline (microphone, speaker, recordings),
/// the video pipeline (camera, encoders, decoders, the pictures the views show), the generated
/// sounds, and how to open another camera. What the engine says of media is carried out here;
/// what the devices make goes back to the engine as inputs, through `feed`.
///
/// Threading: the event loop thread only.
public final class CallDevices {
    public private(set) var audio: AudioPipeline?
    public private(set) var video: VideoPipeline?
    /// Someone joined, left, wrote: a short sound on the speaker (nil with --no-sounds or --json).
    /// It follows the events as they are reported, whether the engine or the rendezvous session
    /// had them.
    public private(set) var sounds: LocalSounds? {
        didSet {
            reporter.onEvent = sounds == nil ? nil : { [weak self] event in
                guard let self, let sounds = self.sounds else { return }
                sounds.react(to: event, now: self.clock.now())
                self.soundQueued()
            }
        }
    }
    /// Opens a camera at the room's size (`camera next`).
    private(set) var openCamera: ((String) throws(CommandLineProblem) -> CameraVideoSource)?

    private let reporter: EventReporter
    private let clock: any MonotonicClock
    /// An input to the engine (the driver's `feed`).
    private let feed: (CallEngine.Input) -> Void
    /// A sound was queued: the driver's wakeup may have to come sooner.
    private let soundQueued: () -> Void

    init(reporter: EventReporter, clock: any MonotonicClock, feed: @escaping (CallEngine.Input) -> Void,
         soundQueued: @escaping () -> Void) {
        self.reporter = reporter
        self.clock = clock
        self.feed = feed
        self.soundQueued = soundQueued
    }

    /// The pipelines opened once in the room (`CallMedia.open`), and the camera opener.
    public func use(_ pipelines: CallMedia.Pipelines, openCamera: @escaping (String) throws(CommandLineProblem) -> CameraVideoSource) {
        (audio, video, sounds) = (pipelines.audio, pipelines.video, pipelines.sounds)
        self.openCamera = openCamera
    }

    /// The encoders' frames go to the engine from now on.
    func startSending() {
        video?.onEncodedFrame = { [weak self] frame, captured in
            self?.feed(.layeredVideoFrame(frame.data, layer: frame.layer, captured: captured))
        }
        video?.onSmallEncodedFrame = { [weak self] frame, captured in
            self?.feed(.smallVideoFrame(frame.data, layer: frame.layer, captured: captured))
        }
    }

    /// When a device next needs the loop: the next audio frame, the video pipeline's next
    /// tick, the next 20 ms of a sound.
    func nextDue(now: Instant) -> Instant? {
        [audio?.nextFrameDue(now: now), video?.nextTickDue(now: now), sounds?.nextFrameDue].compactMap { $0 }.min()
    }

    /// The microphone's frames due, to the engine; the camera's picture to the encoders; the
    /// sounds' next frames to the speaker.
    func tick(now: Instant) {
        for frame in audio?.frames(now: now) ?? [] { feed(.audioFrame(opus: frame.opus, level: frame.level)) }
        video?.tick(now: now)
        sounds?.tick(now: now)
    }

    /// One of the engine's media outputs carried out; false for an output that is not about
    /// media. `participant` names a peer id; `pictureArrived` tells the views.
    func perform(_ output: CallEngine.Output, participant: (ParticipantID) -> Participant?, pictureArrived: () -> Void) -> Bool {
        switch output {
        case .audio(let id, let received, let muted):
            guard let peer = participant(id), let level = audio?.play(received, from: peer, muted: muted, at: clock.now()) else { break }
            feed(.played(id, level: level))
        case .video(let id, let frame, let ssrc):
            guard let peer = participant(id), let video else { break }
            if video.received(frame, ssrc: ssrc, from: peer, at: clock.now()) {
                pictureArrived()
            } else {
                feed(.videoUndecodable(id))
            }
        case .keyFrameRequested:
            video?.keyFrameRequested()
        case .videoBitrate(let kbps):
            video?.setBitrate(kbps: kbps)
        case .smallVideoBitrate(let kbps):
            if video?.setSmallBitrate(kbps: kbps) == false { feed(.smallVideoUnavailable) }
        case .smallKeyFrameRequested:
            video?.smallKeyFrameRequested()
        case .videoWanted(let wanted):
            video?.encodes = wanted
        case .audioEncoding(let kbps, let fec, let loss):
            audio?.setEncoding(bitrateKbps: kbps, fec: fec, expectedLossPercent: loss)
        default:
            return false
        }
        return true
    }

    func peerLeft(_ id: ParticipantID) {
        audio?.peerLeft(id)
        video?.peerLeft(id)
    }

    /// Everything closed: the sounds first (they play on the audio pipeline's speaker).
    func close() {
        sounds = nil
        audio?.close()
        video?.close()
    }
}
