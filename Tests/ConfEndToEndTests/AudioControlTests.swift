import Foundation
import Testing

/// Mute, mute-peer and talking events between real processes, driven by stdin commands.
@Suite struct AudioControlTests {
    static func recordingSize(_ path: String) -> Int {
        fileSize(path) / 2
    }

    /// Waits until the recording at `path` has grown by `samples` from now.
    static func waitForMore(_ path: String, samples: Int) -> Bool {
        let start = recordingSize(path)
        return ConfProcess.waitUntil(timeout: .seconds(10)) { recordingSize(path) >= start + samples }
    }

    @Test func muteSilencesYouForOthersAndTellsThem() throws {
        let server = try RendezvousProcess()
        let room = try server.createRoom()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("conf-mute-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let a = try ConfProcess(["join", room.room, room.pin, "--server", server.address, "--as", "ann", "--json", "--audio-source", "tone:440"],
                                interactive: true)
        let b = try ConfProcess(["join", room.room, room.pin, "--server", server.address, "--as", "bob", "--json", "--record", dir.path])
        let annID = try #require(a.waitForEvent("joined")?["you"] as? String)
        #expect(b.waitForEvent("talking", timeout: .seconds(15)) { $0["peer"] as? String == annID && $0["talking"] as? Bool == true } != nil)
        let file = dir.appendingPathComponent("ann.wav").path
        #expect(Self.waitForMore(file, samples: 48_000))  // a second of ann's tone first
        a.send("mute")
        #expect(a.waitForEvent("muted")?["audio"] as? Bool == true)
        #expect(b.waitForEvent("peer-muted") { $0["peer"] as? String == annID }?["audio"] as? Bool == true)
        #expect(b.waitForEvent("talking") { $0["peer"] as? String == annID && $0["talking"] as? Bool == false } != nil)
        #expect(Self.waitForMore(file, samples: 48_000))
        a.send("bogus command")
        #expect(a.waitForEvent("error")?["code"] as? String == "bad-command")
        a.signal(SIGTERM)
        b.signal(SIGTERM)
        #expect(a.waitForExit() == 0 && b.waitForExit() == 0)
        let samples = try AudioTests.samples(file)
        let profile = stride(from: 0, to: samples.count - 12_000, by: 12_000).map { AudioTests.tonePower(samples[$0..<($0 + 12_000)], 440) }
        #expect(profile.contains { $0 > 0.02 }, "\(samples.count) samples, profile \(profile.map { ($0 * 1000).rounded() / 1000 })")  // before
        #expect(AudioTests.tonePower(samples.suffix(24_000), 440) < 0.0005)  // after the mute
    }

    @Test func mutingOnePeerLocallySilencesOnlyThatOne() throws {
        let server = try RendezvousProcess()
        let room = try server.createRoom()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("conf-mutepeer-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let listener = try ConfProcess(["join", room.room, room.pin, "--server", server.address, "--as", "lis", "--json", "--record", dir.path],
                                       interactive: true)
        #expect(listener.waitForEvent("joined") != nil)
        let a = try ConfProcess(["join", room.room, room.pin, "--server", server.address, "--as", "ann", "--audio-source", "tone:440"])
        let c = try ConfProcess(["join", room.room, room.pin, "--server", server.address, "--as", "cid", "--audio-source", "tone:880"])
        #expect(ConfProcess.waitUntil(timeout: .seconds(15)) { listener.events(ofType: "talking").filter { $0["talking"] as? Bool == true }.count >= 2 })
        let annID = try #require(listener.events(ofType: "peer-joined").first { $0["name"] as? String == "ann" }?["peer"] as? String)
        listener.send("mute-peer \(annID)")
        #expect(listener.waitForEvent("peer-muted-locally")?["muted"] as? Bool == true)
        let annFile = dir.appendingPathComponent("ann.wav").path, cidFile = dir.appendingPathComponent("cid.wav").path
        #expect(Self.waitForMore(annFile, samples: 48_000) && Self.waitForMore(cidFile, samples: 24_000))
        for p in [listener, a, c] { p.signal(SIGTERM) }
        for p in [listener, a, c] { #expect(p.waitForExit() == 0) }
        #expect(AudioTests.tonePower(try AudioTests.samples(annFile).suffix(24_000), 440) < 0.0005)
        #expect(AudioTests.tonePower(try AudioTests.samples(cidFile).suffix(24_000), 880) > 0.02)
    }

    @Test func talkingFollowsAToneSwitchedOnAndOff() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("conf-talk-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        // 1.5 s of tone, 1.5 s of silence, 1.5 s of tone, then silence.
        let file = dir.appendingPathComponent("speech.wav")
        try PulseAudioTests.toneFile(500, seconds: 1.5, at: dir.appendingPathComponent("tone.wav"))
        let tone = try Data(contentsOf: dir.appendingPathComponent("tone.wav")).dropFirst(44)
        let silence = Data(count: tone.count)
        let body = tone + silence + tone
        var wav = try Data(contentsOf: dir.appendingPathComponent("tone.wav")).prefix(44)
        func le32(_ v: Int) -> Data { Data([UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24 & 0xFF)]) }
        wav.replaceSubrange(4..<8, with: le32(36 + body.count))
        wav.replaceSubrange(40..<44, with: le32(body.count))
        try (wav + body).write(to: file)

        let server = try RendezvousProcess()
        let room = try server.createRoom()
        let b = try ConfProcess(["join", room.room, room.pin, "--server", server.address, "--as", "bob", "--json"])
        #expect(b.waitForEvent("joined") != nil)
        let a = try ConfProcess(["join", room.room, room.pin, "--server", server.address, "--as", "ann", "--json", "--audio-source", "file:\(file.path)"])
        let annID = try #require(a.waitForEvent("joined")?["you"] as? String)
        #expect(ConfProcess.waitUntil(timeout: .seconds(15)) { b.events(ofType: "talking").count >= 4 })
        let changes = b.events(ofType: "talking").filter { $0["peer"] as? String == annID }.compactMap { $0["talking"] as? Bool }
        #expect(changes.prefix(4) == [true, false, true, false], "\(changes)")
        let own = a.events(ofType: "talking").filter { $0["peer"] as? String == annID }.compactMap { $0["talking"] as? Bool }
        #expect(own.prefix(2) == [true, false], "ann's own: \(own)")
        a.signal(SIGTERM)
        b.signal(SIGTERM)
        #expect(a.waitForExit() == 0 && b.waitForExit() == 0)
    }
}
