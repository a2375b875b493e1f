import ConfCore

/// The backends that need no device, registered by name; ConfIO adds `pulse` and `v4l2` on top.
public enum MediaBackends {
    /// `tone:HZ` (20 to 20000), `silence`, `file:PATH.wav` (read when prepared, played once, then silence).
    public static func generatedAudioSources<Devices>() -> BackendRegistry<any AudioSource, Devices> {
        var registry = BackendRegistry<any AudioSource, Devices>()
        registry.register("tone") { argument throws(MediaBackendError) in
            guard let argument, let hz = Double(argument), hz >= 20, hz <= 20_000 else {
                throw .badArgument("tone:HZ takes a frequency from 20 to 20000 Hz")
            }
            return { _ in PacedAudioSource(ToneGenerator(frequency: hz)) }
        }
        registry.register("silence") { argument throws(MediaBackendError) in
            guard argument == nil else { throw .badArgument("silence takes no argument") }
            return { _ in PacedAudioSource(SilenceGenerator()) }
        }
        registry.register("file") { argument throws(MediaBackendError) in
            guard let argument, !argument.isEmpty else { throw .badArgument("file:PATH.wav names a WAV file") }
            let samples: [Int16]
            do {
                samples = try WAVFile.read(path: argument)
            } catch {
                throw .unreadable("\(error)")
            }
            return { _ in PacedAudioSource(SamplesGenerator(samples: samples)) }
        }
        return registry
    }

    /// `none`.
    public static func generatedAudioSinks<Devices>() -> BackendRegistry<any AudioSink, Devices> {
        var registry = BackendRegistry<any AudioSink, Devices>()
        registry.register("none") { argument throws(MediaBackendError) in
            guard argument == nil else { throw .badArgument("none takes no argument") }
            return { _ in NoAudioSink() }
        }
        return registry
    }

    /// `pattern` (a moving test picture), `pattern:noisy` (the same under changing grain, which
    /// takes the whole bitrate), `pattern:clock` (the time it was made, drawn in cells, for
    /// measuring delay), `file:PATH.y4m` (a clip, looped; checked when prepared), `none`
    /// (nil: no video is sent).
    public static func generatedVideoSources<Devices>() -> BackendRegistry<(any VideoSource)?, Devices> {
        var registry = BackendRegistry<(any VideoSource)?, Devices>()
        registry.register("pattern") { argument throws(MediaBackendError) in
            switch argument {
            case nil, "noisy"?:
                let noisy = argument == "noisy"
                return { context in TestPatternSource(width: context.video.width, height: context.video.height, noisy: noisy) }
            case "clock"?:
                return { context in ClockPatternSource(width: context.video.width, height: context.video.height, clock: context.clock) }
            default:
                throw .badArgument("pattern takes no argument, or noisy, or clock")
            }
        }
        registry.register("file") { argument throws(MediaBackendError) in
            guard let path = argument, !path.isEmpty else { throw .badArgument("file:PATH.y4m names a YUV4MPEG2 file") }
            let reader: Y4MReader
            do throws(Y4MHeader.Problem) {
                reader = try Y4MReader(path: path)
            } catch {
                throw .unreadable(error.description)
            }
            guard reader.nextFrame() != nil else { throw .unreadable("\(path) holds no complete frame") }
            return { context throws(MediaBackendError) in
                do throws(Y4MHeader.Problem) {
                    return try Y4MVideoSource(path: path, width: context.video.width, height: context.video.height)
                } catch {
                    throw .unreadable(error.description)
                }
            }
        }
        registry.register("none") { argument throws(MediaBackendError) in
            guard argument == nil else { throw .badArgument("none takes no argument") }
            return { _ in nil }
        }
        return registry
    }
}
