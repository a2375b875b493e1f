import Foundation
import Testing

/// Audio end to end between real processes (generated tones in, recordings out; PulseAudio
/// devices come later): Opus, RTP, SRTP, jitter buffer, decoding, WAV recording.
@Suite struct AudioTests {
    static func tonePower(_ samples: ArraySlice<Int16>, _ frequency: Double) -> Double {
        let k = 2 * cos(2 * Double.pi * frequency / 48_000)
        var s1 = 0.0, s2 = 0.0
        for sample in samples {
            let s0 = Double(sample) / 32768 + k * s1 - s2
            s2 = s1
            s1 = s0
        }
        let n = Double(samples.count)
        return 4 * (s1 * s1 + s2 * s2 - k * s1 * s2) / (n * n)
    }

    /// The samples of a 48 kHz mono 16-bit WAV written by conf.
    static func samples(_ path: String) throws -> [Int16] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        guard data.count > 44 else { return [] }
        return data.dropFirst(44).withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }

    @Test func everyoneHearsTheOthersTonesAndNotTheirOwn() throws {
        let server = try RendezvousProcess()
        let room = try server.createRoom()
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("conf-audio-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let tones = ["ann": 440.0, "bob": 660.0, "cid": 990.0]
        var processes: [String: ConfProcess] = [:]
        for (name, hz) in tones {
            let dir = root.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            processes[name] = try ConfProcess(["join", room.room, room.pin, "--server", server.address, "--as", name, "--json",
                                               "--audio-source", "tone:\(Int(hz))", "--record", dir.path])
        }
        for (name, p) in processes {
            #expect(ConfProcess.waitUntil(timeout: .seconds(15)) { p.events(ofType: "peer-connected").count == 2 }, "\(name)")
        }
        // Until every recording holds 1.5 s (conf rewrites the WAV header each second, and the
        // data grows as it plays out), then everyone leaves and the recordings are complete.
        func recorded(_ listener: String, _ speaker: String) -> Int {
            let path = root.appendingPathComponent(listener).appendingPathComponent("\(speaker).wav").path
            return fileSize(path) / 2
        }
        #expect(ConfProcess.waitUntil(timeout: .seconds(10)) {
            tones.keys.allSatisfy { l in tones.keys.filter { $0 != l }.allSatisfy { recorded(l, $0) >= 72_000 } }
        })
        for p in processes.values { p.signal(SIGTERM) }
        for p in processes.values { #expect(p.waitForExit() == 0) }
        for (listener, _) in tones {
            for (speaker, hz) in tones {
                let path = root.appendingPathComponent(listener).appendingPathComponent("\(speaker).wav").path
                if speaker == listener {
                    #expect(!FileManager.default.fileExists(atPath: path), "\(listener) recorded itself")
                    continue
                }
                let recording = try Self.samples(path)
                #expect(recording.count > 48_000, "\(listener) heard only \(recording.count) samples of \(speaker)")
                let middle = recording.dropFirst(recording.count / 4).prefix(recording.count / 2)
                #expect(Self.tonePower(middle, hz) > 0.02, "\(listener) does not hear \(speaker)'s \(hz) Hz")
                for (other, otherHz) in tones where other != speaker {
                    #expect(Self.tonePower(middle, otherHz) < 0.002, "\(listener)'s recording of \(speaker) has \(other)'s tone")
                }
            }
        }
    }

    @Test func aListenerSendsNoAudio() throws {
        let server = try RendezvousProcess()
        let room = try server.createRoom()
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("conf-audio-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let recorder = try ConfProcess(["join", room.room, room.pin, "--server", server.address, "--as", "rec", "--json", "--record", root.path])
        #expect(recorder.waitForEvent("joined") != nil)
        let talker = try ConfProcess(["join", room.room, room.pin, "--server", server.address, "--as", "talker", "--audio-source", "tone:700"])
        let listener = try ConfProcess(["join", room.room, room.listenPin, "--server", server.address, "--as", "lis", "--json",
                                        "--audio-source", "tone:500"])
        #expect(ConfProcess.waitUntil(timeout: .seconds(15)) { recorder.events(ofType: "peer-connected").count == 2 })
        // Once a second of the talker is recorded, the listener (connected as long) has had time to send.
        let talkerFile = root.appendingPathComponent("talker.wav").path
        #expect(ConfProcess.waitUntil(timeout: .seconds(10)) {
            fileSize(talkerFile) >= 96_000
        })
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("lis.wav").path))
        for p in [recorder, talker, listener] { p.signal(SIGTERM) }
        for p in [recorder, talker, listener] { #expect(p.waitForExit() == 0) }
    }

    @Test func statsReportWhatArrives() throws {
        let server = try RendezvousProcess()
        let room = try server.createRoom()
        let a = try ConfProcess(["join", room.room, room.pin, "--server", server.address, "--as", "ann", "--audio-source", "tone:440"])
        let b = try ConfProcess(["join", room.room, room.pin, "--server", server.address, "--as", "bob", "--json", "--stats"])
        let report = b.waitForEvent("audio-stats", timeout: .seconds(15)) { event in
            ((event["peers"] as? [[String: Any]])?.first?["kbps"] as? Double ?? 0) > 10
        }
        let peer = try #require((report?["peers"] as? [[String: Any]])?.first)
        #expect((peer["kbps"] as? Double ?? 0) < 80)
        #expect(peer["loss_percent"] as? Double == 0)
        #expect((peer["buffer_ms"] as? Double).map { $0 <= 100 } == true)
        a.signal(SIGTERM)
        b.signal(SIGTERM)
        #expect(a.waitForExit() == 0 && b.waitForExit() == 0)
    }

    @Test func playMixesASoundIntoWhatYouSend() throws {
        let server = try RendezvousProcess()
        let room = try server.createRoom()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("conf-play-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let sound = dir.appendingPathComponent("sound.wav")
        try PulseAudioTests.toneFile(700, seconds: 3, at: sound)
        let recorder = try ConfProcess(["join", room.room, room.pin, "--server", server.address, "--as", "rec", "--json", "--record", dir.path])
        #expect(recorder.waitForEvent("joined") != nil)
        let player = try ConfProcess(["join", room.room, room.pin, "--server", server.address, "--as", "ann", "--audio-source", "silence"],
                                     interactive: true)
        #expect(recorder.waitForEvent("peer-connected", timeout: .seconds(15)) != nil)
        player.send("play \(sound.path)")
        let file = dir.appendingPathComponent("ann.wav").path
        #expect(recorder.waitForEvent("talking", timeout: .seconds(5)) { $0["talking"] as? Bool == true } != nil)
        #expect(recorder.waitForEvent("talking", timeout: .seconds(8)) { $0["talking"] as? Bool == false } != nil)  // played once
        player.signal(SIGTERM)
        recorder.signal(SIGTERM)
        #expect(player.waitForExit() == 0 && recorder.waitForExit() == 0)
        let samples = try Self.samples(file)
        let powers = stride(from: 0, to: samples.count - 24_000, by: 24_000).map { Self.tonePower(samples[$0..<($0 + 24_000)], 700) }
        #expect(powers.contains { $0 > 0.02 }, "\(powers)")
        #expect(Self.tonePower(samples.suffix(12_000), 700) < 0.001)  // and only once: silence after it
    }

    @Test func anUnreadableAudioFileIsAnErrorBeforeTheCall() throws {
        let p = try ConfProcess(["join", "1234-5678", "123456", "--server", "127.0.0.1:1", "--audio-source", "file:/nonexistent.wav"])
        #expect(p.waitForExit() == 2)
        #expect(p.stderr.contains("cannot open /nonexistent.wav"))
    }
}
