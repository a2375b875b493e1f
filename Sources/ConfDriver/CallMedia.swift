import ConfCall
import ConfCallMedia
import ConfCore
import ConfIO
import ConfMedia
import ConfWire

/// Opens a participant's media once it is in the room: the backends chosen on the command line,
/// the encoders (only for a publisher), the recordings; and says what goes wrong with them later.
public enum CallMedia {
    public struct Pipelines {
        public var audio: AudioPipeline?
        public var sounds: LocalSounds?
        public var video: VideoPipeline?
    }

    public static func open(audio: AudioSettings, video: VideoSettings, sends: Bool, resolution: Resolution, loop: EventLoop,
                     reporter: EventReporter) throws(CommandFailure) -> Pipelines {
        let (width, height) = resolution.size
        let context = BackendContext(devices: MediaDevices(pulse: audio.pulse, loop: loop),
                                     video: VideoFormat(width: width, height: height, framesPerSecond: video.framesPerSecond), clock: loop.clock)
        let recordings = audio.recordDirectory.map { Recordings(directory: $0, videoSize: (width, height)) }
        let (audioPipeline, speaker) = try openAudio(audio, sends: sends, context: context, recordings: recordings)
        let pipelines = Pipelines(audio: audioPipeline, sounds: audio.sounds ? speaker.map(LocalSounds.init) : nil,
                                  video: try openVideo(video, sends: sends, context: context, recordings: recordings, loop: loop,
                                                       reporter: reporter))
        pipelines.audio?.onIssue = { report($0, to: reporter) }
        pipelines.video?.onIssue = { report($0, to: reporter) }
        return pipelines
    }

    private static func openAudio(_ settings: AudioSettings, sends: Bool, context: BackendContext<MediaDevices>, recordings: Recordings?)
        throws(CommandFailure) -> (AudioPipeline?, speaker: (any AudioSink)?)
    {
        guard settings.enabled else { return (nil, nil) }
        var source: (any AudioSource)?
        var encoder: OpusEncoder?
        if sends {  // a listener opens no source at all
            do {
                source = try settings.source.open(context)
            } catch {
                throw CommandFailure(.deviceUnavailable, code: "no-audio-device", "\(error)")
            }
            do {
                encoder = try OpusEncoder(bitrate: settings.bitrate)
            } catch {
                throw CommandFailure(.failure, code: "opus", "cannot start the audio encoder: \(error)")
            }
        }
        let sink: any AudioSink
        do {
            sink = try settings.sink.open(context)
        } catch {
            throw CommandFailure(.deviceUnavailable, code: "no-audio-device", "\(error)")
        }
        return (AudioPipeline(source: source, encoder: encoder, sinks: [sink] + (recordings.map { [$0] } ?? [])), sink)
    }

    private static func openVideo(_ settings: VideoSettings, sends: Bool, context: BackendContext<MediaDevices>, recordings: Recordings?,
                                  loop: EventLoop, reporter: EventReporter) throws(CommandFailure) -> VideoPipeline? {
        guard settings.enabled else { return nil }
        var source: (any VideoSource)?
        var encoder: VP8Encoder?
        if sends {
            do {
                source = try settings.source.open(context)
            } catch where settings.source.name == "auto" {
                // A camera nobody asked for by name: the call goes on without video.
                reporter.note("conf: the camera could not be opened (\(error)): no video is sent — --video-source none says so")
            } catch {
                throw CommandFailure(.failure, code: "no-camera", "--video-source \(settings.source.text): \(error) — check the device with v4l2-ctl --list-devices")
            }
            if let camera = source as? CameraVideoSource, settings.source.name == "auto" {
                reporter.note("conf: sending video from \(camera.name) (\(camera.path), \(camera.mode)); camera off in the call, or --no-video, to send none")
            }
        }
        // A camera runs at its own rate (30 frames a second where it can); other sources as asked.
        let framesPerSecond = source?.framesPerSecond ?? settings.framesPerSecond
        if source != nil {
            do {
                // Three temporal layers: each link is sent the ones its estimate carries (CallEngine+Layers).
                let size = source?.pictureSize ?? (context.video.width, context.video.height)
                encoder = try VP8Encoder(width: size.width, height: size.height, bitrateKbps: settings.bitrateKbps,
                                         framesPerSecond: framesPerSecond, temporalLayers: 3)
            } catch {
                source?.close()
                throw CommandFailure(.failure, code: "vp8", "cannot start the video encoder: \(error)")
            }
        }
        return VideoPipeline(source: source, encoder: encoder, framesPerSecond: framesPerSecond, recordings: recordings,
                             hop: { [loop] body in loop.invoke(body) })
    }

    /// Opens a camera by its device at the room's size and a camera's rate (`camera next`).
    public static func cameraOpener(resolution: Resolution, loop: EventLoop) -> (String) throws(CommandLineProblem) -> CameraVideoSource {
        let (width, height) = resolution.size
        return { path throws(CommandLineProblem) in
            do throws(V4L2Camera.Failure) {
                return try CameraVideoSource(loop: loop, path: path, format: VideoFormat(width: width, height: height,
                                                                                       framesPerSecond: CameraVideoSource.preferredFramesPerSecond))
            } catch {
                throw CommandLineProblem(message: "camera \(path): \(error.description) (the call goes on with the camera it had)")
            }
        }
    }

    /// A backend stopped working: the call goes on without it.
    private static func report(_ issue: MediaIssue, to reporter: EventReporter) {
        switch issue {
        case .microphoneLost: reporter.emit(.deviceLost(.microphone))
        case .cameraLost: reporter.emit(.deviceLost(.camera))
        case .speakerLost(let peer): reporter.emit(.deviceLost(.speaker(peer)))
        case .cannotPlay(let peer, let reason): reporter.note("conf: cannot play \(peer.name): \(reason)")
        case .recordError(let peer, let path, let reason): reporter.emit(.recordError(peer: peer, path: path, error: reason))
        }
    }
}
