import Foundation
import Testing
import TestSupport

/// `--record DIR` with real processes: one file per participant per call across link restarts,
/// distinct files for one name, nothing overwritten, and a write failure that leaves the call and
/// the file's header intact.
@Suite struct RecordingTests {
    static func temporaryDirectory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("conf-rec-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// A room at 240p (cheap to encode on a busy machine).
    static func smallRoom(_ server: RendezvousProcess) throws -> (room: String, pin: String) {
        let (status, body) = try HTTP.request(port: server.port, method: "POST", path: "/v1/rooms", body: #"{"name":"rec","resolution":"240p"}"#)
        guard status == 201, let json = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
              let room = json["room"] as? String, let pin = json["pin"] as? String
        else { throw TestFailure("room creation failed: \(status) \(body)") }
        return (room, pin)
    }

    static func le32(_ bytes: [UInt8], _ i: Int) -> Int {
        Int(bytes[i]) | Int(bytes[i + 1]) << 8 | Int(bytes[i + 2]) << 16 | Int(bytes[i + 3]) << 24
    }

    /// The WAV header's data size and the bytes after the header.
    static func wavSizes(_ path: String) throws -> (header: Int, onDisk: Int) {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        guard bytes.count >= 44 else { throw TestFailure("\(path) has no WAV header: \(bytes.count) bytes") }
        return (le32(bytes, 40), bytes.count - 44)
    }

    /// An IVF file's header frame count and each frame's timestamp.
    static func ivfTimes(_ path: String) throws -> (count: Int, timestamps: [UInt64]) {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        guard bytes.count >= 32 else { throw TestFailure("\(path) is not IVF") }
        var times: [UInt64] = []
        var offset = 32
        while offset + 12 <= bytes.count {
            let size = le32(bytes, offset)
            guard offset + 12 + size <= bytes.count else { throw TestFailure("\(path) ends inside a frame") }
            times.append(UInt64(le32(bytes, offset + 4)) | UInt64(le32(bytes, offset + 8)) << 32)
            offset += 12 + size
        }
        return (le32(bytes, 24), times)
    }

    @Test func aRestartedLinkKeepsRecordingIntoOneWAVAndOneIVF() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try RendezvousProcess()
        let room = try Self.smallRoom(server)
        let ann = try ConfProcess(["join", room.room, room.pin, "--server", server.address, "--as", "ann", "--json", "--record", dir.path])
        #expect(ann.waitForEvent("joined") != nil)
        let bob = try ConfProcess(["join", room.room, room.pin, "--server", server.address, "--as", "bob", "--json",
                                   "--audio-source", "tone:440", "--video-source", "pattern"])
        #expect(ann.waitForEvent("peer-connected", timeout: .seconds(15)) != nil)
        let connected = ContinuousClock.now
        let wav = dir.appendingPathComponent("bob.wav").path, ivf = dir.appendingPathComponent("bob.ivf").path
        #expect(AudioControlTests.waitForMore(wav, samples: 48_000), "a first second of bob")
        // bob freezes long enough for ann to give the link up, then comes back: the link is set up again.
        bob.signal(SIGSTOP)
        #expect(ann.waitForEvent("peer-disconnected", timeout: .seconds(6)) != nil)
        bob.signal(SIGCONT)
        #expect(ConfProcess.waitUntil(timeout: .seconds(20)) { ann.events(ofType: "peer-connected").count >= 2 }, "ann: \(ann.stdout)")
        // bob's tone again at the end of the same file (after the silence of the gap), then a second more.
        #expect(ConfProcess.waitUntil(timeout: .seconds(10)) {
            AudioTests.tonePower(((try? AudioTests.samples(wav)) ?? []).suffix(9_600)[...], 440) > 0.02
        }, "bob's tone after the restart")
        #expect(AudioControlTests.waitForMore(wav, samples: 48_000))
        let framesBefore = try VideoTests.frames(ivf).frames.count  // mid-call: a frame may be half written
        #expect(ConfProcess.waitUntil(timeout: .seconds(10)) { ((try? VideoTests.frames(ivf).frames.count) ?? 0) >= framesBefore + 15 })
        let elapsed = ContinuousClock.now - connected
        ann.signal(SIGTERM)
        bob.signal(SIGTERM)
        #expect(ann.waitForExit() == 0 && bob.waitForExit() == 0)

        // One file of each kind for bob, nothing else.
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        #expect(files == ["bob.ivf", "bob.wav"], "\(files)")
        // The WAV spans both links (the gap is silence): about the whole time since the first connection.
        let sizes = try Self.wavSizes(wav)
        #expect(sizes.header == sizes.onDisk)
        let samples = try AudioTests.samples(wav)
        let seconds = Double(samples.count) / 48_000
        let wall = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        #expect(seconds > wall - 1.5 && seconds < wall + 0.5, "\(seconds) s recorded over \(wall) s")
        #expect(AudioTests.tonePower(samples.prefix(48_000).dropFirst(12_000), 440) > 0.02, "bob's tone before the restart")
        #expect(AudioTests.tonePower(samples.suffix(48_000).prefix(36_000), 440) > 0.02, "bob's tone after the restart")
        // The IVF: a truthful frame count, times from 0, increasing, across the restart's gap.
        let video = try Self.ivfTimes(ivf)
        #expect(video.count == video.timestamps.count, "header says \(video.count), file holds \(video.timestamps.count)")
        #expect(video.timestamps.first == 0)
        #expect(zip(video.timestamps, video.timestamps.dropFirst()).allSatisfy { $0 < $1 })
        let gaps = zip(video.timestamps, video.timestamps.dropFirst()).map { $1 - $0 }
        #expect((gaps.max() ?? 0) > 90_000 * 2, "the restart's gap: \(gaps.max() ?? 0) ticks")
        let span = Double(video.timestamps.last ?? 0) / 90_000
        #expect(span > wall - 3 && span < wall + 1, "video spans \(span) s of \(wall) s")
    }

    @Test func twoParticipantsWithOneNameGetTwoFilesAndAnEarlierRunsFileIsKept() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let earlier = dir.appendingPathComponent("bob.wav")
        try Data("an earlier run's recording".utf8).write(to: earlier)
        let server = try RendezvousProcess()
        let room = try server.createRoom()
        let rec = try ConfProcess(["join", room.room, room.pin, "--server", server.address, "--as", "rec", "--json", "--record", dir.path])
        #expect(rec.waitForEvent("joined") != nil)
        let bobs = try [440, 660].map { hz in
            try ConfProcess(["join", room.room, room.pin, "--server", server.address, "--as", "bob", "--json", "--audio-source", "tone:\(hz)"])
        }
        #expect(ConfProcess.waitUntil(timeout: .seconds(20)) { rec.events(ofType: "peer-connected").count == 2 })
        let paths = ["bob-2.wav", "bob-3.wav"].map { dir.appendingPathComponent($0).path }
        // The recorder stalls early on, as a loaded machine starves it (this test failed once in a
        // full run that way): the recording follows the playout clock, so its stall is silence in
        // the files; each file still holds its bob.
        #expect(ConfProcess.waitUntil { paths.allSatisfy { AudioControlTests.recordingSize($0) > 4_800 } })
        rec.signal(SIGSTOP)
        usleep(700_000)
        rec.signal(SIGCONT)
        for path in paths { #expect(AudioControlTests.waitForMore(path, samples: 48_000), "\(path)") }
        for p in bobs + [rec] { p.signal(SIGTERM) }
        for p in bobs + [rec] { #expect(p.waitForExit() == 0) }
        #expect(try String(contentsOf: earlier, encoding: .utf8) == "an earlier run's recording")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["bob-2.wav", "bob-3.wav", "bob.wav"])
        // Each file holds one bob: the two tones are one in each, over the whole file (a window of
        // its first second read the stall's silence: heard [0, 440]).
        let powers = try paths.map { path -> (Double, Double) in
            let recorded = try AudioTests.samples(path).dropFirst(12_000)
            return (AudioTests.tonePower(recorded, 440), AudioTests.tonePower(recorded, 660))
        }
        let heard = powers.map { p440, p660 in p440 > 4 * p660 && p440 > 0.005 ? 440 : p660 > 4 * p440 && p660 > 0.005 ? 660 : 0 }
        #expect(Set(heard) == [440, 660], "\(heard): powers \(powers)")
    }

    /// A recording that stops being writable mid-call: one `record-error` naming the file and the
    /// system's words, a header that matches the file, and a call that goes on to its --duration.
    func failingRecording(into dir: String, error expected: String, maxBytes: Int, prepare: (ConfProcess) throws -> Void) throws {
        let server = try RendezvousProcess()
        let room = try server.createRoom()
        let rec = try ConfProcess(["join", room.room, room.pin, "--server", server.address, "--as", "rec", "--json",
                                   "--record", dir, "--duration", "6"])
        #expect(rec.waitForEvent("joined") != nil)
        try prepare(rec)
        let bob = try ConfProcess(["join", room.room, room.pin, "--server", server.address, "--as", "bob", "--json",
                                   "--audio-source", "tone:440"], interactive: true)
        let path = dir + "/bob.wav"
        let failed = rec.waitForEvent("record-error", timeout: .seconds(15))
        #expect(failed?["path"] as? String == path)
        #expect(failed?["error"] as? String == expected)
        #expect(failed?["peer"] as? String == bob.waitForEvent("joined")?["you"] as? String)
        #expect(ConfProcess.waitUntil(timeout: .seconds(5)) { rec.stderr.contains(path) && rec.stderr.contains(expected) }, "\(rec.stderr)")
        // The call goes on: chat after the failure arrives, and the call lasts its --duration.
        bob.send("say after the error")
        #expect(rec.waitForEvent("chat") { $0["text"] as? String == "after the error" } != nil)
        #expect(rec.waitForExit(timeout: .seconds(15)) == 0, "\(rec.stderr)")
        #expect(rec.events(ofType: "left").first?["reason"] as? String == "duration")
        #expect(rec.events(ofType: "record-error").count == 1)
        // The header describes what the file holds.
        let sizes = try Self.wavSizes(path)
        #expect(sizes.header == sizes.onDisk && sizes.onDisk > 0 && fileSize(path) <= maxBytes, "\(sizes), \(fileSize(path)) bytes")
        bob.signal(SIGTERM)
        #expect(bob.waitForExit() == 0)
    }

    @Test(.enabled(if: TinyFilesystem.available, "needs root to mount a tmpfs in a private mount namespace"))
    func aFullDiskIsReportedAndTheCallGoesOnWithATruthfulHeader() throws {
        let disk = try TinyFilesystem(kilobytes: 64)
        try failingRecording(into: disk.path, error: "No space left on device", maxBytes: 64 * 1024) { _ in }
    }

    /// A file size limit (as `ulimit -f` sets): the write fails with EFBIG, and SIGXFSZ, which
    /// would kill a process that does not ignore it.
    @Test func aFileSizeLimitIsReportedAndTheCallGoesOnWithATruthfulHeader() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try failingRecording(into: dir.path, error: "File too large", maxBytes: 100_000) { rec in
            // 100,000 bytes: about a second of audio, then no more.
            let limit = Process()
            limit.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
            limit.arguments = ["--pid", "\(rec.pid)", "--fsize=100000:100000"]
            try limit.run()
            limit.waitUntilExit()
            #expect(limit.terminationStatus == 0)
        }
    }
}
