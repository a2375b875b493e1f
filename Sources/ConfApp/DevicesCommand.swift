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

    func run() -> Int32 {
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

    private static func sound(_ device: PulseConnection.Device) -> CallEvent.SoundDevice {
        .init(name: device.name, description: device.description, isMonitor: device.isMonitor, isDefault: device.isDefault)
    }

    private static func camera(_ camera: CameraDevices.Camera) -> CallEvent.CameraDevice {
        .init(path: camera.path, name: camera.name, modes: camera.modes.map { mode in
            .init(format: mode.format, width: mode.width, height: mode.height, framesPerSecond: mode.fps)
        }, isDefault: camera.isDefault)
    }
}
