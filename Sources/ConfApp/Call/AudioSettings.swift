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
        settings.sounds = !context.invocation.flag("no-sounds") && !context.json
        if let text = context.setting("audio-source") {
            settings.source = try .choose(text, from: sources) { error throws(CommandFailure) in
                if case .unreadable(let reason) = error {
                    throw CommandFailure(.usage, code: "bad-audio-file", "--audio-source \(text): \(reason)")
                }
                throw context.usage("--audio-source '\(text)': use pulse[:NAME], tone:HZ (20 to 20000), silence, or file:PATH.wav")
            }
        }
        if let mic = context.setting("mic") { settings.source = try .choose("pulse:" + mic, from: sources) }
        if let text = context.setting("audio-sink") {
            settings.sink = try .choose(text, from: sinks) { _ throws(CommandFailure) in
                throw context.usage("--audio-sink '\(text)': use pulse[:NAME] or none")
            }
        }
        if let speaker = context.setting("speaker") { settings.sink = try .choose("pulse:" + speaker, from: sinks) }
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
            pulse = try PulseConnection()
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
