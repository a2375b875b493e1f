import ConfCore
import ConfIO

/// `conf devices`: the PulseAudio sources and sinks, by the names --mic and --speaker take.
struct DevicesCommand {
    let context: CommandContext

    init(_ context: CommandContext) { self.context = context }

    func run() -> Int32 {
        let reporter = EventReporter(json: context.json, environment: context.environment)
        let devices: (sources: [PulseConnection.Device], sinks: [PulseConnection.Device])
        do {
            devices = try PulseConnection().devices()
        } catch {
            reporter.failure(CommandFailure(.noAudioDevice, code: "no-pulseaudio",
                                            "\(error) — start PulseAudio (`pulseaudio --start`, or log in to a desktop session)"))
            return ExitCode.noAudioDevice.rawValue
        }
        func json(_ device: PulseConnection.Device) -> JSONValue {
            .object(["name": .string(device.name), "description": .string(device.description), "monitor": .bool(device.isMonitor)])
        }
        if context.json {
            Console.out(JSONValue.object(["type": "devices", "sources": .array(devices.sources.map(json)),
                                          "sinks": .array(devices.sinks.map(json))]).serialized)
            return ExitCode.ok.rawValue
        }
        Console.out("Sources (--mic):")
        for source in devices.sources {
            Console.out("  \(source.name)  \(reporter.style.dim(source.description + (source.isMonitor ? " (monitor of a sink)" : "")))")
        }
        Console.out("Sinks (--speaker):")
        for sink in devices.sinks { Console.out("  \(sink.name)  \(reporter.style.dim(sink.description))") }
        return ExitCode.ok.rawValue
    }
}
