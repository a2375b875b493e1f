import ConfCall
import ConfCore
import ConfDriver
import ConfIO

/// `conf devices`: the PulseAudio sources and sinks, by the names --mic and --speaker take.
struct DevicesCommand {
    let context: CommandContext

    init(_ context: CommandContext) { self.context = context }

    func run() -> Int32 {
        let reporter = context.reporter()
        let devices: (sources: [PulseConnection.Device], sinks: [PulseConnection.Device])
        do {
            devices = try PulseConnection().devices()
        } catch {
            reporter.failure(CommandFailure(.noAudioDevice, code: "no-pulseaudio",
                                            "\(error) — start PulseAudio (`pulseaudio --start`, or log in to a desktop session)"))
            return ExitCode.noAudioDevice.rawValue
        }
        func device(_ device: PulseConnection.Device) -> CallEvent.SoundDevice {
            .init(name: device.name, description: device.description, isMonitor: device.isMonitor)
        }
        reporter.emit(.devices(sources: devices.sources.map(device), sinks: devices.sinks.map(device)))
        return ExitCode.ok.rawValue
    }
}
