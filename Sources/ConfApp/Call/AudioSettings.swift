import ConfMedia

/// What `--audio-source`, `--audio-sink`, `--record` and `--audio-bitrate` ask for, checked before
/// the call starts (an unreadable file is an error then, not later).
struct AudioSettings {
    enum Source: Equatable {
        case tone(Double)
        case silence
        case file(String)
    }

    var enabled = true
    var source = Source.silence
    var recordDirectory: String?
    var bitrate = 32_000
    /// The decoded file of `.file`, read once up front.
    var fileSamples: [Int16] = []

    static func parse(_ context: CommandContext) throws(CommandFailure) -> AudioSettings {
        var settings = AudioSettings()
        settings.enabled = !context.invocation.flag("no-audio")
        if let text = context.setting("audio-source") {
            if text == "silence" {
                settings.source = .silence
            } else if text.hasPrefix("tone:"), let hz = Double(text.dropFirst(5)), hz >= 20, hz <= 20_000 {
                settings.source = .tone(hz)
            } else if text.hasPrefix("file:"), text.count > 5 {
                let path = String(text.dropFirst(5))
                do {
                    settings.fileSamples = try WAVFile.read(path: path)
                } catch {
                    throw CommandFailure(.usage, code: "bad-audio-file", "--audio-source \(text): \(error)")
                }
                settings.source = .file(path)
            } else if text == "pulse" || text.hasPrefix("pulse:") {
                throw CommandFailure(.failure, code: "no-pulseaudio",
                    "--audio-source \(text): PulseAudio capture is not available in this build yet; use tone:HZ, file:PATH.wav or silence")
            } else {
                throw context.usage("--audio-source '\(text)': use tone:HZ (20 to 20000), silence, or file:PATH.wav")
            }
        }
        if let sink = context.setting("audio-sink"), sink != "none" {
            throw context.usage("--audio-sink '\(sink)': this build plays to 'none' only (record with --record DIR); PulseAudio playback is coming")
        }
        if let directory = context.setting("record") {
            var info = stat()
            guard stat(directory, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, access(directory, W_OK) == 0 else {
                throw context.usage("--record \(directory): not a directory you can write to (create it first)")
            }
            settings.recordDirectory = directory
        }
        if let text = context.setting("audio-bitrate") {
            guard let bitrate = Int(text), (6_000...510_000).contains(bitrate) else {
                throw context.usage("--audio-bitrate '\(text)': give bits per second from 6000 to 510000, like 32000")
            }
            settings.bitrate = bitrate
        }
        return settings
    }

    func makeSource() -> AudioSource {
        switch source {
        case .tone(let hz): ToneSource(frequency: hz)
        case .silence: SilenceSource()
        case .file: BufferSource(samples: fileSamples)
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
