import Foundation
import Testing

/// A real PulseAudio daemon for one test, on null sinks, with its own PULSE_RUNTIME_PATH.
final class PulseDaemon {
    let runtime: URL
    var environment: [String: String] { ["PULSE_RUNTIME_PATH": runtime.path, "PULSE_SERVER": "unix:\(runtime.path)/native"] }

    init(sinks: [String]) throws {
        runtime = FileManager.default.temporaryDirectory.appendingPathComponent("conf-pulse-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true)
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: "/usr/bin/pulseaudio")
        daemon.arguments = ["-D", "--exit-idle-time=-1", "-n", "--use-pid-file=yes", "--load=module-native-protocol-unix"]
            + sinks.map { "--load=module-null-sink sink_name=\($0)" }
        daemon.environment = ProcessInfo.processInfo.environment.merging(["PULSE_RUNTIME_PATH": runtime.path]) { $1 }
        daemon.standardOutput = FileHandle.nullDevice
        daemon.standardError = FileHandle.nullDevice
        try daemon.run()
        daemon.waitUntilExit()
        guard ConfProcess.waitUntil(timeout: .seconds(10), { self.run("/usr/bin/pactl", ["info"]) == 0 }) else {
            throw TestFailure("PulseAudio did not start (is the pulseaudio package installed?)")
        }
    }

    deinit {
        if let pid = try? String(contentsOf: runtime.appendingPathComponent("pid"), encoding: .utf8),
           let number = Int32(pid.trimmingCharacters(in: .whitespacesAndNewlines)) {
            kill(number, SIGKILL)
        }
        try? FileManager.default.removeItem(at: runtime)
    }

    @discardableResult
    func run(_ tool: String, _ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// What a PulseAudio tool prints (pactl list ...).
    func output(_ tool: String, _ arguments: [String]) -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return "" }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// Starts a PulseAudio tool in the background (paplay, parec).
    func start(_ tool: String, _ arguments: [String], output: URL? = nil) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        if let output {
            FileManager.default.createFile(atPath: output.path, contents: nil)
            process.standardOutput = try FileHandle(forWritingTo: output)
        } else {
            process.standardOutput = FileHandle.nullDevice
        }
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }
}

@Suite(.serialized) struct PulseAudioTests {
    /// A WAV of `seconds` of a tone, 48 kHz mono.
    static func toneFile(_ hz: Double, seconds: Double, at url: URL) throws {
        let count = Int(48_000 * seconds)
        var data = Data()
        func le32(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24 & 0xFF)] }
        data += Array("RIFF".utf8) + le32(36 + count * 2) + Array("WAVEfmt ".utf8) + le32(16) + [1, 0, 1, 0] + le32(48_000) + le32(96_000)
        data += [2, 0, 16, 0] + Array("data".utf8) + le32(count * 2)
        for n in 0..<count {
            let v = UInt16(bitPattern: Int16(8000 * sin(2 * Double.pi * hz * Double(n) / 48_000)))
            data += [UInt8(v & 0xFF), UInt8(v >> 8)]
        }
        try data.write(to: url)
    }

    /// A WAV whose 600 Hz tone is switched on and off in 50 ms steps by a seeded pattern: a
    /// signal with a recognisable envelope, for correlation.
    static func patternFile(seconds: Double, at url: URL) throws -> [Double] {
        var random = UInt64(12345)
        let steps = Int(seconds * 20)
        var envelope: [Double] = []
        for _ in 0..<steps {
            random = random &* 6364136223846793005 &+ 1442695040888963407
            envelope.append(random >> 63 == 1 ? 1 : 0)
        }
        let count = steps * 2400
        var data = Data()
        func le32(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24 & 0xFF)] }
        data += Array("RIFF".utf8) + le32(36 + count * 2) + Array("WAVEfmt ".utf8) + le32(16) + [1, 0, 1, 0] + le32(48_000) + le32(96_000)
        data += [2, 0, 16, 0] + Array("data".utf8) + le32(count * 2)
        for n in 0..<count {
            let v = UInt16(bitPattern: Int16(8000 * envelope[n / 2400] * sin(2 * Double.pi * 600 * Double(n) / 48_000)))
            data += [UInt8(v & 0xFF), UInt8(v >> 8)]
        }
        try data.write(to: url)
        return envelope
    }

    /// RMS per 50 ms block.
    static func envelope(_ samples: [Int16]) -> [Double] {
        stride(from: 0, to: samples.count - 2400, by: 2400).map { start in
            var sum = 0.0
            for v in samples[start..<(start + 2400)] { sum += Double(v) * Double(v) }
            return (sum / 2400).squareRoot()
        }
    }

    /// The best normalised correlation of `recorded` against `original` over all offsets, with
    /// sub-block offsets tried by shifting the recording's blocks.
    static func bestCorrelation(original: [Double], recorded: [Int16]) -> Double {
        var best = -1.0
        for shift in stride(from: 0, to: 2400, by: 240) {
            let env = envelope(Array(recorded.dropFirst(shift)))
            guard env.count >= 20 else { continue }
            for lag in 0..<max(1, original.count - env.count) {
                let a = Array(original[lag..<min(original.count, lag + env.count)])
                let b = Array(env.prefix(a.count))
                let ma = a.reduce(0, +) / Double(a.count), mb = b.reduce(0, +) / Double(b.count)
                var num = 0.0, da = 0.0, db = 0.0
                for i in a.indices {
                    num += (a[i] - ma) * (b[i] - mb)
                    da += (a[i] - ma) * (a[i] - ma)
                    db += (b[i] - mb) * (b[i] - mb)
                }
                if da > 0, db > 0 { best = max(best, num / (da * db).squareRoot()) }
            }
        }
        return best
    }

    /// Records `seconds` of spkB's monitor (bob's speaker) with parec; its 48 kHz mono samples.
    static func recordSpeaker(_ pulse: PulseDaemon, seconds: Double, into file: URL) throws -> [Int16] {
        let recorder = try pulse.start("/usr/bin/parec", ["--device=spkB.monitor", "--rate=48000", "--channels=1", "--format=s16le", "--raw"],
                                       output: file)
        #expect(ConfProcess.waitUntil(timeout: .seconds(20)) { fileSize(file.path) >= Int(seconds * 96_000) })
        kill(recorder.processIdentifier, SIGKILL)
        return try Data(contentsOf: file).withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }

    /// ann captures from micA's monitor; bob plays into spkB. Both connected on return.
    static func call(_ pulse: PulseDaemon) throws -> (RendezvousProcess, ConfProcess, ConfProcess) {
        let server = try RendezvousProcess()
        let room = try server.createRoom()
        var env = pulse.environment
        env["CONF_AUDIO_SOURCE"] = nil
        env["CONF_AUDIO_SINK"] = nil
        let a = try ConfProcess(["join", room.room, room.pin, "--server", server.address, "--as", "ann", "--json",
                                 "--mic", "micA.monitor", "--audio-sink", "none"], environment: env)
        let b = try ConfProcess(["join", room.room, room.pin, "--server", server.address, "--as", "bob", "--json",
                                 "--audio-source", "silence", "--speaker", "spkB"], environment: env)
        #expect(a.waitForEvent("peer-connected", timeout: .seconds(15)) != nil, "\(a.stderr)")
        #expect(b.waitForEvent("peer-connected", timeout: .seconds(15)) != nil, "\(b.stderr)")
        return (server, a, b)
    }

    @Test func aWAVPlayedIntoAsMicArrivesInBsSpeakerAndMatches() throws {
        let pulse = try PulseDaemon(sinks: ["micA", "spkB"])
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("conf-pa-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let wav = dir.appendingPathComponent("pattern.wav")
        let original = try Self.patternFile(seconds: 30, at: wav)
        let (server, a, b) = try Self.call(pulse)
        defer { withExtendedLifetime(server) {} }
        let player = try pulse.start("/usr/bin/paplay", ["--device=micA", wav.path])
        // Four seconds of B's speaker (80 pattern steps).
        let samples = try Self.recordSpeaker(pulse, seconds: 4, into: dir.appendingPathComponent("spkB.raw"))
        kill(player.processIdentifier, SIGKILL)
        // The whole 4 s at one alignment, or either 2 s half at its own (40 steps): when the jitter
        // buffer adjusts its delay mid-recording (a loaded machine), the alignment moves there.
        let recorded = Array(samples.suffix(192_000))
        let correlations = [recorded, Array(recorded.prefix(96_000)), Array(recorded.suffix(96_000))].map {
            Self.bestCorrelation(original: original, recorded: $0)
        }
        #expect(correlations.max()! > 0.8, "correlations (whole, first half, second half) \(correlations)")
        a.signal(SIGTERM)
        b.signal(SIGTERM)
        #expect(a.waitForExit() == 0 && b.waitForExit() == 0)
    }

    @Test func aToneIntoAsMicComesOutOfBsSpeaker() throws {
        let pulse = try PulseDaemon(sinks: ["micA", "spkB"])
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("conf-pa-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let tone = dir.appendingPathComponent("tone.wav")
        try Self.toneFile(523, seconds: 20, at: tone)

        let (server, a, b) = try Self.call(pulse)
        defer { withExtendedLifetime(server) {} }
        let player = try pulse.start("/usr/bin/paplay", ["--device=micA", tone.path])
        // Once B hears ann talking, record a second of B's speaker.
        #expect(b.waitForEvent("talking", timeout: .seconds(10)) { $0["talking"] as? Bool == true } != nil)
        let samples = try Self.recordSpeaker(pulse, seconds: 1.5, into: dir.appendingPathComponent("spkB.raw"))
        kill(player.processIdentifier, SIGKILL)
        // The streams as the desktop's mixer sees them: B plays ann as a stream named after her; A's
        // capture asks for the echo canceller and says it is a phone call.
        let inputs = pulse.output("/usr/bin/pactl", ["list", "sink-inputs"])
        #expect(inputs.contains("media.name = \"ann\""), "\(inputs)")
        let outputs = pulse.output("/usr/bin/pactl", ["list", "source-outputs"])
        #expect(outputs.contains("media.role = \"phone\"") && outputs.contains("filter.want = \"echo-cancel\""), "\(outputs)")
        let tail = samples.suffix(48_000)
        #expect(AudioTests.tonePower(tail, 523) > 0.02, "B's speaker does not carry A's tone")
        #expect(AudioTests.tonePower(tail, 1000) < 0.002)
        a.signal(SIGTERM)
        b.signal(SIGTERM)
        #expect(a.waitForExit() == 0 && b.waitForExit() == 0)
    }

    /// bob (a person: no --json) hears a short rising sound on his speaker when dan joins, in a
    /// stream of its own; ann (--json) and cat (a person, but --no-sounds) play none.
    @Test func aJoinPlaysASoundOnThePersonsSpeakerOnly() throws {
        let pulse = try PulseDaemon(sinks: ["spkA", "spkB", "spkC", "spkD"])
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("conf-pa-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try RendezvousProcess()
        let room = try server.createRoom()
        var env = pulse.environment
        env["CONF_AUDIO_SINK"] = nil
        let join = ["join", room.room, room.pin, "--server", server.address]
        let ann = try ConfProcess(join + ["--as", "ann", "--json", "--speaker", "spkA"], environment: env)
        let bob = try ConfProcess(join + ["--as", "bob", "--speaker", "spkB", "--video-view", "none"], environment: env)
        let cat = try ConfProcess(join + ["--as", "cat", "--no-sounds", "--speaker", "spkC", "--video-view", "none"], environment: env)
        #expect(bob.waitForOutput(containing: "connected to ann", timeout: .seconds(15)) != nil, "\(bob.stderr)")
        #expect(cat.waitForOutput(containing: "connected to bob", timeout: .seconds(15)) != nil, "\(cat.stderr)")
        let recorders = try ["spkA", "spkB", "spkC"].map { sink in
            try pulse.start("/usr/bin/parec", ["--device=\(sink).monitor", "--rate=48000", "--channels=1", "--format=s16le", "--raw"],
                            output: dir.appendingPathComponent("\(sink).raw"))
        }
        let file = { (sink: String) in dir.appendingPathComponent("\(sink).raw") }
        let sinks = ["spkA", "spkB", "spkC"]
        #expect(ConfProcess.waitUntil { sinks.allSatisfy { fileSize(file($0).path) >= 9_600 } }, "the recorders run")
        let dan = try ConfProcess(join + ["--as", "dan", "--json", "--speaker", "spkD", "--video-view", "none"], environment: env)
        #expect(bob.waitForOutput(containing: "dan joined", timeout: .seconds(10)) != nil)
        // A second and a half from here: the sound and the speaker's latency.
        let atJoin = sinks.map { fileSize(file($0).path) }
        #expect(ConfProcess.waitUntil(timeout: .seconds(10)) { zip(sinks, atJoin).allSatisfy { fileSize(file($0).path) >= $1 + 144_000 } })
        for recorder in recorders { kill(recorder.processIdentifier, SIGKILL) }
        let heard = { (sink: String) in try Data(contentsOf: file(sink)).withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) } }
        let bobs = try heard("spkB")
        // The sound's two notes, 660 then 880 Hz, somewhere in what bob's speaker played.
        let windows = stride(from: 0, to: max(0, bobs.count - 4_800), by: 2_400).map { bobs[$0 ..< $0 + 4_800] }
        let peaks = [660.0, 880].map { hz in windows.map { AudioTests.tonePower($0, hz) }.max() ?? 0 }
        #expect(peaks.allSatisfy { $0 > 0.002 }, "no join sound on bob's speaker: \(peaks), \(bobs.count) samples")
        for (sink, why) in [("spkA", "ann (--json)"), ("spkC", "cat (--no-sounds)")] {
            let played = try heard(sink)
            #expect(!stride(from: 0, to: max(0, played.count - 4_800), by: 2_400).contains { AudioTests.tonePower(played[$0 ..< $0 + 4_800], 880) > 0.002 },
                    "\(why) played a sound")
        }
        let inputs = pulse.output("/usr/bin/pactl", ["list", "sink-inputs"])
        #expect(inputs.contains("media.name = \"conf sounds\""), "its own stream: \(inputs)")
        for process in [ann, bob, cat, dan] { process.signal(SIGTERM) }
        #expect([ann, bob, cat, dan].allSatisfy { $0.waitForExit() == 0 })
        withExtendedLifetime(server) {}
    }

    @Test func devicesListsSourcesAndSinksAndMarksTheDefaults() throws {
        let pulse = try PulseDaemon(sinks: ["speakers", "headset"])
        let pactl = Process()
        pactl.executableURL = URL(fileURLWithPath: "/usr/bin/pactl")
        pactl.arguments = ["set-default-sink", "headset"]
        pactl.environment = ProcessInfo.processInfo.environment.merging(pulse.environment) { $1 }
        try pactl.run()
        pactl.waitUntilExit()
        #expect(pactl.terminationStatus == 0)
        let p = try ConfProcess(["devices", "--json"], environment: pulse.environment)
        #expect(p.waitForExit() == 0)
        let listing = try #require(p.events(ofType: "devices").first)
        let sinks = (listing["sinks"] as? [[String: Any]]) ?? []
        #expect(sinks.contains { $0["name"] as? String == "speakers" } && sinks.contains { $0["name"] as? String == "headset" })
        #expect(sinks.filter { $0["default"] as? Bool == true }.map { $0["name"] as? String } == ["headset"], "\(sinks)")
        #expect((listing["sources"] as? [[String: Any]])?.contains { $0["name"] as? String == "speakers.monitor" } == true)
        #expect(((listing["sources"] as? [[String: Any]]) ?? []).filter { $0["default"] as? Bool == true }.count <= 1)
        #expect((listing["cameras"] as? [Any]) != nil, "cameras are listed (none here)")
    }

    @Test func noPulseAudioIsExit9WithAWayOut() throws {
        let env = ["PULSE_SERVER": "unix:/nonexistent/native", "CONF_AUDIO_SOURCE": "pulse"]
        let p = try ConfProcess(["join", "1234-5678", "123456", "--server", "127.0.0.1:1"], environment: env)
        #expect(p.waitForExit() == 9)
        #expect(p.stderr.contains("PulseAudio") && p.stderr.contains("--audio-source tone:440"))
        let devices = try ConfProcess(["devices"], environment: ["PULSE_SERVER": "unix:/nonexistent/native"])
        #expect(devices.waitForExit() == 9)
    }

    @Test func aDeviceAskedForByFlagWithoutPulseAudioIsStillExit9() throws {
        let env = ["PULSE_SERVER": "unix:/nonexistent/native", "CONF_AUDIO_SOURCE": "", "CONF_AUDIO_SINK": ""]
        let p = try ConfProcess(["join", "1234-5678", "123456", "--server", "127.0.0.1:1", "--audio-sink", "pulse:speakers"], environment: env)
        #expect(p.waitForExit() == 9)
        #expect(p.stderr.contains("PulseAudio"))
    }

    /// No sound server and no device asked for: the host opens its room, says so once in it, and
    /// calls without devices (it used to exit 9 before making the room).
    @Test func withoutASoundServerTheDefaultDevicesAreLeftOutAndTheCallGoesOn() throws {
        let env = ["PULSE_SERVER": "unix:/nonexistent/native", "CONF_AUDIO_SOURCE": "", "CONF_AUDIO_SINK": ""]
        let host = try ConfProcess(["host", "--listen", "127.0.0.1:0", "--name", "standup", "--as", "ann", "--json"], environment: env)
        let missing = host.waitForEvent("devices-missing")
        #expect(missing?["devices"] as? [String] == ["microphone", "speaker"], "host: \(host.stderr)")
        // The human advice goes to stderr, its own pipe: it may come a moment after the event.
        #expect(ConfProcess.waitUntil(timeout: .seconds(5)) { host.stderr.contains("start pulseaudio or pipewire-pulse for sound") },
                "\(host.stderr)")
        let room = try #require(host.waitForEvent("room"))
        let command = try #require(room["join_command"] as? String).split(separator: " ").map(String.init)
        let guest = try ConfProcess(Array(command.dropFirst()) + ["--as", "bob", "--json", "--audio-source", "tone:440"], environment: env)
        #expect(guest.waitForEvent("peer-connected", timeout: .seconds(15)) != nil)
        #expect(host.waitForEvent("peer-connected", timeout: .seconds(15)) != nil)
        // bob chose his source; only the default speaker is missing for him.
        #expect(guest.events(ofType: "devices-missing").first?["devices"] as? [String] == ["speaker"])
        #expect(host.events(ofType: "devices-missing").count == 1)
        guest.signal(SIGTERM)
        host.signal(SIGTERM)
        #expect(guest.waitForExit() == 0 && host.waitForExit() == 0)
    }

    /// What shell completion offers for --mic and --speaker: the names as conf devices lists them.
    @Test func devicesNamesAreWhatMicAndSpeakerTake() throws {
        let pulse = try PulseDaemon(sinks: ["speakers", "headset"])
        let speakers = try ConfProcess(["devices", "--names", "speakers"], environment: pulse.environment)
        #expect(speakers.waitForExit() == 0)
        #expect(Set(speakers.stdout.split(separator: "\n").map(String.init)).isSuperset(of: ["speakers", "headset"]), "\(speakers.stdout)")
        let microphones = try ConfProcess(["devices", "--names", "microphones"], environment: pulse.environment)
        #expect(microphones.waitForExit() == 0)
        #expect(!microphones.stdout.contains(".monitor"), "a sink's monitor is no microphone: \(microphones.stdout)")
        let sources = try ConfProcess(["devices", "--names", "audio-sources"], environment: pulse.environment)
        #expect(sources.waitForExit() == 0 && sources.stdout.hasPrefix("pulse\n") && sources.stdout.contains("\ntone:440\n"))
        let wrong = try ConfProcess(["devices", "--names", "printers"])
        #expect(wrong.waitForExit() == 2 && wrong.stderr.contains("microphones"))
    }

    @Test func aMissingDeviceIsNamed() throws {
        let pulse = try PulseDaemon(sinks: ["speakers"])
        let server = try RendezvousProcess()
        let room = try server.createRoom()
        var env = pulse.environment
        env["CONF_AUDIO_SINK"] = "none"
        // Someone already in the room sees nobody join: the devices are checked before joining.
        let witness = try ConfProcess(["join", room.room, room.pin, "--server", server.address, "--as", "wit", "--json", "--no-video",
                                       "--audio-source", "silence", "--audio-sink", "none"], environment: env)
        #expect(witness.waitForEvent("joined") != nil, "\(witness.stderr)")
        let p = try ConfProcess(["join", room.room, room.pin, "--server", server.address, "--mic", "no-such-mic"], environment: env)
        #expect(p.waitForExit() == 9)
        #expect(p.stderr.contains("no-such-mic") && p.stderr.contains("conf devices"))
        env["CONF_AUDIO_SINK"] = nil
        let speaker = try ConfProcess(["join", room.room, room.pin, "--server", server.address, "--speaker", "no-such-speaker", "--json",
                                       "--audio-source", "silence"], environment: env)
        #expect(speaker.waitForExit() == 9, "\(speaker.stderr)")
        #expect(speaker.events(ofType: "error").first?["code"] as? String == "no-audio-device", "\(speaker.stdout)")
        #expect(speaker.stderr.contains("no-such-speaker") && speaker.stderr.contains("speakers"), "names what there is: \(speaker.stderr)")
        #expect(speaker.events(ofType: "joined").isEmpty)
        #expect(witness.events(ofType: "peer-joined").isEmpty, "\(witness.stdout)")
        witness.signal(SIGTERM)
        _ = witness.waitForExit()
    }

    /// Two ways of saying one thing on a command line are a usage error, not a silent choice.
    @Test(arguments: [["--mic", "x", "--audio-source", "silence"], ["--no-audio", "--audio-source", "tone:300"],
                      ["--speaker", "x", "--audio-sink", "none"], ["--no-video", "--video-source", "pattern"]])
    func contradictingOptionsAreAUsageError(options: [String]) throws {
        let p = try ConfProcess(["join", "4821-7734", "381204", "--server", "127.0.0.1:9"] + options)
        #expect(p.waitForExit() == 2)
        #expect(p.stderr.contains("give one of them"), "\(p.stderr)")
    }
}

@Suite struct VanishingDeviceTests {
    @Test func aSpeakerThatVanishesIsReportedAndTheCallGoesOn() throws {
        let pulse = try PulseDaemon(sinks: ["spkB"])
        let server = try RendezvousProcess()
        let room = try server.createRoom()
        var env = pulse.environment
        env["CONF_AUDIO_SINK"] = nil
        let a = try ConfProcess(["join", room.room, room.pin, "--server", server.address, "--as", "ann", "--audio-source", "tone:440"],
                                interactive: true)
        let b = try ConfProcess(["join", room.room, room.pin, "--server", server.address, "--as", "bob", "--json", "--speaker", "spkB"],
                                environment: env)
        #expect(b.waitForEvent("talking", timeout: .seconds(15)) != nil)  // ann's tone is playing into spkB
        #expect(pulse.run("/usr/bin/pactl", ["unload-module", "module-null-sink"]) == 0)
        #expect(b.waitForEvent("device-lost", timeout: .seconds(5))?["device"] as? String == "speaker")
        a.send("say still talking")
        #expect(b.waitForEvent("chat", timeout: .seconds(5)) { $0["text"] as? String == "still talking" } != nil)
        a.signal(SIGTERM)
        b.signal(SIGTERM)
        #expect(a.waitForExit() == 0 && b.waitForExit() == 0)
    }

    @Test func aMicrophoneThatVanishesIsReportedAndTheCallGoesOn() throws {
        let pulse = try PulseDaemon(sinks: ["micA"])
        let server = try RendezvousProcess()
        let room = try server.createRoom()
        var env = pulse.environment
        env["CONF_AUDIO_SINK"] = "none"
        env["CONF_AUDIO_SOURCE"] = nil
        let a = try ConfProcess(["join", room.room, room.pin, "--server", server.address, "--as", "ann", "--json", "--mic", "micA.monitor"],
                                environment: env, interactive: true)
        let b = try ConfProcess(["join", room.room, room.pin, "--server", server.address, "--as", "bob", "--json", "--audio-source", "silence"],
                                environment: ["CONF_AUDIO_SINK": "none"])
        #expect(a.waitForEvent("peer-connected", timeout: .seconds(15)) != nil)
        // Remove the null sink whose monitor is ann's microphone.
        #expect(pulse.run("/usr/bin/pactl", ["unload-module", "module-null-sink"]) == 0)
        #expect(a.waitForEvent("device-lost", timeout: .seconds(5))?["device"] as? String == "microphone")
        // The link lives on: chat still goes both ways after the loss.
        a.send("say after the loss")
        #expect(b.waitForEvent("chat", timeout: .seconds(5)) { $0["text"] as? String == "after the loss" } != nil)
        #expect(b.events(ofType: "peer-disconnected").isEmpty)
        a.signal(SIGTERM)
        b.signal(SIGTERM)
        #expect(a.waitForExit() == 0 && b.waitForExit() == 0)
    }
}
