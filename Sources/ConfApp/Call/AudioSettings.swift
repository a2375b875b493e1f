import ConfCall
import ConfCore
import ConfDriver
import ConfIO
import ConfMedia
#if canImport(Glibc)
import Glibc
#endif

/// Reading and checking `AudioSettings` from the command line.
extension AudioSettings {
    static func parse(_ context: CommandContext) throws(CommandFailure) -> AudioSettings {
        let sources = MediaBackends.audioSources(), sinks = MediaBackends.audioSinks()
        var settings = AudioSettings(source: try .choose("pulse", from: sources), sink: try .choose("pulse", from: sinks))
        settings.enabled = !context.invocation.flag("no-audio")
        // Two ways of saying what to send, or what to play, on one command line contradict each
        // other; one in the environment or config file yields to the command line's.
        let given = context.invocation
        if given.value("mic") != nil, given.value("audio-source") != nil {
            throw context.usage("--mic and --audio-source both say what to send: give one of them (--mic NAME is --audio-source pulse:NAME)")
        }
        if given.value("speaker") != nil, given.value("audio-sink") != nil {
            throw context.usage("--speaker and --audio-sink both say where to play: give one of them (--speaker NAME is --audio-sink pulse:NAME)")
        }
        if !settings.enabled, let option = ["audio-source", "mic"].first(where: { given.value($0) != nil }) {
            throw context.usage("--no-audio sends no sound, and --\(option) says what to send: give one of them")
        }
        settings.sounds = !context.invocation.flag("no-sounds") && !context.json
        if let text = context.setting("audio-source") {
            settings.source = try .choose(text, from: sources) { error throws(CommandFailure) in
                if case .unreadable(let reason) = error {
                    throw CommandFailure(.usage, code: "bad-audio-file", "--audio-source \(text): \(reason)")
                }
                throw context.usage("--audio-source '\(text)': use pulse[:NAME], tone:HZ (20 to 20000), silence, or file:PATH.wav")
            }
        }
        if let mic = context.setting("mic"), given.value("audio-source") == nil { settings.source = try .choose("pulse:" + mic, from: sources) }
        if let text = context.setting("audio-sink") {
            settings.sink = try .choose(text, from: sinks) { _ throws(CommandFailure) in
                throw context.usage("--audio-sink '\(text)': use pulse[:NAME] or none")
            }
        }
        if let speaker = context.setting("speaker"), given.value("audio-sink") == nil { settings.sink = try .choose("pulse:" + speaker, from: sinks) }
        if let directory = context.setting("record") {
            guard !directory.isEmpty else { throw context.usage("--record: give a directory") }
            settings.recordDirectory = directory
        }
        // A device asked for by flag, environment or config file must be there (exit 9); the
        // default devices are only wanted if a sound server runs.
        settings.askedForSource = ["audio-source", "mic"].contains { context.setting($0) != nil }
        settings.askedForSink = ["audio-sink", "speaker"].contains { context.setting($0) != nil }
        if let text = context.setting("audio-bitrate") {
            guard let bitrate = Int(text), (6_000...510_000).contains(bitrate) else {
                throw context.usage("--audio-bitrate '\(text)': give bits per second from 6000 to 510000, like 32000")
            }
            settings.bitrate = bitrate
        }
        return settings
    }

    /// Connects to the PulseAudio server when a source or sink needs it: called once every
    /// option has been checked, so that a bad option is reported before any device is touched.
    /// Without a server, the default devices are left out (`missingDevices`); one asked for is exit 9.
    mutating func connectSoundServer() throws(CommandFailure) {
        guard needsPulse, pulse == nil else { return }
        do {
            let connection = try PulseConnection()
            pulse = connection
            try checkNamedDevices(on: connection)
        } catch let failure as CommandFailure {
            throw failure
        } catch where !(askedForSource && source.isPulse) && !(askedForSink && sink.isPulse) {
            var devices: [CallEvent.Device] = []
            if source.isPulse { devices.append(.microphone); source = try .choose("silence", from: MediaBackends.audioSources()) }
            if sink.isPulse { devices.append(.speaker); sink = try .choose("none", from: MediaBackends.audioSinks()) }
            missingDevices = ("\(error)", devices)
        } catch {
            throw CommandFailure(.deviceUnavailable, code: "no-pulseaudio",
                "\(error) — start PulseAudio (`pulseaudio --start`, or log in to a desktop session), or run without devices: "
                + "--audio-source tone:440 (or file:PATH.wav, silence) --audio-sink none")
        }
    }

    /// A microphone or speaker named by `--mic`/`--speaker` (or `pulse:NAME`) must be there
    /// before anyone is joined: exit 9 naming it and what there is, as `conf devices` lists them.
    private func checkNamedDevices(on connection: PulseConnection) throws(CommandFailure) {
        let sourceName = source.isPulse ? source.argument.flatMap { $0.isEmpty ? nil : $0 } : nil
        let sinkName = sink.isPulse ? sink.argument.flatMap { $0.isEmpty ? nil : $0 } : nil
        guard sourceName != nil || sinkName != nil, let devices = try? connection.devices() else { return }
        if let sourceName, !devices.sources.contains(where: { $0.name == sourceName }) {
            let names = devices.sources.filter { !$0.isMonitor }.map(\.name)
            throw CommandFailure(.deviceUnavailable, code: "no-audio-device",
                                 "no microphone named '\(sourceName)'; there are: \(names.isEmpty ? "none" : names.joined(separator: ", ")) (conf devices lists them)")
        }
        if let sinkName, !devices.sinks.contains(where: { $0.name == sinkName }) {
            let names = devices.sinks.map(\.name)
            throw CommandFailure(.deviceUnavailable, code: "no-audio-device",
                                 "no speaker named '\(sinkName)'; there are: \(names.isEmpty ? "none" : names.joined(separator: ", ")) (conf devices lists them)")
        }
    }

    /// Makes `--record`'s directory and its parents as `mkdir -p` would, once every option has
    /// been checked; anything in the way, or a directory that cannot be written, is an error.
    func createRecordDirectory() throws(CommandFailure) {
        guard let directory = recordDirectory else { return }
        var path = directory.hasPrefix("/") ? "/" : ""
        for component in directory.split(separator: "/") {
            path += (path.isEmpty || path == "/" ? "" : "/") + component
            var info = stat()
            if stat(path, &info) == 0 {
                guard info.st_mode & S_IFMT == S_IFDIR else {
                    throw CommandFailure(.usage, code: "usage", "--record \(directory): \(path) is in the way: it is not a directory")
                }
            } else if mkdir(path, 0o755) != 0 && errno != EEXIST {
                throw CommandFailure(.usage, code: "usage", "--record \(directory): cannot create \(path): \(String(cString: strerror(errno)))")
            }
        }
        guard access(directory, W_OK) == 0 else {
            throw CommandFailure(.usage, code: "usage", "--record \(directory): cannot write there: \(String(cString: strerror(errno)))")
        }
    }
}
