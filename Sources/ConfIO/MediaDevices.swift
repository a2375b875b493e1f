import ConfMedia

/// What the device backends open with: the PulseAudio server (nil when none is needed or none
/// runs) and the event loop that reads cameras.
public struct MediaDevices {
    public var pulse: PulseConnection?
    public var loop: EventLoop

    public init(pulse: PulseConnection?, loop: EventLoop) {
        self.pulse = pulse
        self.loop = loop
    }
}

/// Every backend by name: the generated ones (ConfMedia) and the devices, `pulse[:NAME]` for audio
/// in and out and `v4l2:/dev/videoN` for video.
extension MediaBackends {
    public static func audioSources() -> BackendRegistry<any AudioSource, MediaDevices> {
        var registry: BackendRegistry<any AudioSource, MediaDevices> = generatedAudioSources()
        registry.register("pulse") { argument throws(MediaBackendError) in
            let device = argument.flatMap { $0.isEmpty ? nil : $0 }
            return { context throws(MediaBackendError) in
                let server = try soundServer(context)
                do throws(PulseError) {
                    return try PulseAudioSource(server, device: device)
                } catch {
                    throw .device("\(error)")
                }
            }
        }
        return registry
    }

    public static func audioSinks() -> BackendRegistry<any AudioSink, MediaDevices> {
        var registry: BackendRegistry<any AudioSink, MediaDevices> = generatedAudioSinks()
        registry.register("pulse") { argument throws(MediaBackendError) in
            let device = argument.flatMap { $0.isEmpty ? nil : $0 }
            return { context throws(MediaBackendError) in PulseAudioSink(try soundServer(context), device: device) }
        }
        return registry
    }

    public static func videoSources() -> BackendRegistry<(any VideoSource)?, MediaDevices> {
        var registry: BackendRegistry<(any VideoSource)?, MediaDevices> = generatedVideoSources()
        // The default: the first camera that offers a format conf reads; no video without one.
        registry.register("auto") { _ throws(MediaBackendError) in
            return { context throws(MediaBackendError) in
                guard let camera = CameraDevices.list().first(where: \.isDefault) else { return nil }
                do throws(V4L2Camera.Failure) {
                    return try CameraVideoSource(loop: context.devices.loop, path: camera.path, format: cameraFormat(context.video))
                } catch {
                    throw .device(error.description)
                }
            }
        }
        registry.register("v4l2") { argument throws(MediaBackendError) in
            guard let path = argument, !path.isEmpty else { throw .badArgument("v4l2:PATH names a camera, like v4l2:/dev/video0") }
            return { context throws(MediaBackendError) in
                do throws(V4L2Camera.Failure) {
                    return try CameraVideoSource(loop: context.devices.loop, path: path, format: cameraFormat(context.video))
                } catch {
                    throw .device(error.description)
                }
            }
        }
        return registry
    }

    /// The room's picture size at the rate a camera is asked for.
    private static func cameraFormat(_ format: VideoFormat) -> VideoFormat {
        VideoFormat(width: format.width, height: format.height, framesPerSecond: CameraVideoSource.preferredFramesPerSecond)
    }

    private static func soundServer(_ context: BackendContext<MediaDevices>) throws(MediaBackendError) -> PulseConnection {
        guard let pulse = context.devices.pulse else { throw .device("cannot connect to PulseAudio: no sound server was opened") }
        return pulse
    }
}
