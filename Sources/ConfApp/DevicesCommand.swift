import ConfCall
import ConfCore
import ConfDriver
import ConfIO

/// `conf devices`: the PulseAudio sources and sinks, by the names --mic and --speaker take, and the
/// cameras with what they offer. Without a sound server the cameras are still listed, then the
/// failure is reported (exit 9).
struct DevicesCommand {
    let context: CommandContext

    init(_ context: CommandContext) { self.context = context }

    /// What `--names` lists.
    enum NameKind: String, CaseIterable {
        case microphones, speakers, audioSources = "audio-sources", audioSinks = "audio-sinks", videoSources = "video-sources"
    }

    func run() -> Int32 {
        if let text = context.setting("names") {
            guard let kind = NameKind(rawValue: text) else {
                let failure = context.usage("--names '\(text)': use one of \(NameKind.allCases.map(\.rawValue).joined(separator: ", "))")
                context.reporter().failure(failure)
                return failure.exitCode.rawValue
            }
            for name in Self.names(kind) { Console.out(name) }
            return ExitCode.ok.rawValue
        }
        let reporter = context.reporter()
        let cameras = CameraDevices.list().map(Self.camera)
        let devices: (sources: [PulseConnection.Device], sinks: [PulseConnection.Device])
        do {
            devices = try PulseConnection().devices()
        } catch {
            reporter.emit(.devices(sources: [], sinks: [], cameras: cameras))
            reporter.failure(CommandFailure(.deviceUnavailable, code: "no-pulseaudio",
                                            "\(error) — start PulseAudio (`pulseaudio --start`, or log in to a desktop session)"))
            return ExitCode.deviceUnavailable.rawValue
        }
        reporter.emit(.devices(sources: devices.sources.map(Self.sound), sinks: devices.sinks.map(Self.sound), cameras: cameras))
        return ExitCode.ok.rawValue
    }

    /// The values an option takes, for completion: the devices there are now (none of
    /// PulseAudio's without a server) and the test sources. The sound server is asked only for
    /// the audio kinds; a name that is not one word of printable characters (a device may be
    /// named after a Bluetooth peer's words) is left out rather than written to a terminal.
    static func names(_ kind: NameKind) -> [String] {
        func pulse() -> (sources: [PulseConnection.Device], sinks: [PulseConnection.Device]) {
            (try? PulseConnection().devices()) ?? ([], [])
        }
        func words(_ names: [String]) -> [String] {
            names.filter { !$0.isEmpty && $0.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F } }
        }
        switch kind {
        case .microphones: return words(pulse().sources.filter { !$0.isMonitor }.map(\.name))
        case .speakers: return words(pulse().sinks.map(\.name))
        case .audioSources:
            return ["pulse"] + words(pulse().sources.filter { !$0.isMonitor }.map(\.name)).map { "pulse:" + $0 } + ["tone:440", "silence", "file:"]
        case .audioSinks: return ["pulse"] + words(pulse().sinks.map(\.name)).map { "pulse:" + $0 } + ["none"]
        case .videoSources:
            return ["auto"] + words(CameraDevices.list().map { "v4l2:" + $0.path }) + ["pattern", "pattern:noisy", "pattern:clock", "file:", "none"]
        }
    }

    private static func sound(_ device: PulseConnection.Device) -> CallEvent.SoundDevice {
        .init(name: device.name, description: device.description, isMonitor: device.isMonitor, isDefault: device.isDefault)
    }

    private static func camera(_ camera: CameraDevices.Camera) -> CallEvent.CameraDevice {
        .init(path: camera.path, name: camera.name, modes: camera.modes.map { mode in
            .init(format: mode.format, width: mode.width, height: mode.height, framesPerSecond: mode.fps)
        }, isDefault: camera.isDefault)
    }
}
