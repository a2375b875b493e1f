import ConfCore
import ConfMedia
import Foundation
import Testing

/// The backend seams: generated sources paced by a manual clock, and backends chosen by name.
@Suite struct MediaBackendTests {
    private let noDevices = BackendContext(devices: (), video: VideoFormat(width: 64, height: 48, framesPerSecond: 15))

    @Test func aGeneratedSourceGivesOneFrameEach20msAndCatchesUpLateTicks() {
        let clock = ManualClock(Instant(nanoseconds: 5_000_000_000))
        let source = PacedAudioSource(ToneGenerator(frequency: 440))
        #expect(source.frames(now: clock.now()).count == 1)  // the first frame is due at once
        clock.advance(by: .milliseconds(5))
        #expect(source.frames(now: clock.now()).isEmpty)
        clock.advance(by: .milliseconds(15))
        #expect(source.frames(now: clock.now()).count == 1)
        // A tick 70 ms late gives the frames it missed, each a full 20 ms frame.
        clock.advance(by: .milliseconds(70))
        let late = source.frames(now: clock.now())
        #expect(late.count == 3)
        #expect(late.allSatisfy { $0.count == AudioFormat.frameSamples })
        // Irregular ticks: one frame per 20 ms elapsed since the first, whatever the tick pattern.
        let steady = PacedAudioSource(SilenceGenerator())
        let start = clock.now()
        var total = 0
        for step in 0..<200 {
            total += steady.frames(now: clock.now()).count
            clock.advance(by: .milliseconds(step % 3 == 0 ? 1 : 7))
        }
        total += steady.frames(now: clock.now()).count
        #expect(total == Int(clock.now().since(start).milliseconds / 20) + 1)
        #expect(source.isLost == false)
    }

    @Test func aStallLongerThanTheCatchUpLimitRestartsPacingInsteadOfBursting() {
        let clock = ManualClock(.zero)
        let source = PacedAudioSource(SilenceGenerator())
        _ = source.frames(now: clock.now())
        clock.advance(by: .milliseconds(150))  // late, within the limit: caught up
        #expect(source.frames(now: clock.now()).count == 7)
        clock.advance(by: .seconds(3))  // the process was stopped
        #expect(source.frames(now: clock.now()).count == 1)
        clock.advance(by: .milliseconds(20))
        #expect(source.frames(now: clock.now()).count == 1)
    }

    @Test func backendsAreChosenByNameWithTheirArgumentsChecked() throws {
        let sources: BackendRegistry<any AudioSource, Void> = MediaBackends.generatedAudioSources()
        #expect(sources.names == ["file", "silence", "tone"])
        let tone = try sources.prepare("tone:440")(noDevices)
        #expect(SignalAnalysis.level(tone.frames(now: .zero)[0]) < 20)
        let silence = try sources.prepare("silence")(noDevices)
        #expect(silence.frames(now: .zero) == [[Int16](repeating: 0, count: AudioFormat.frameSamples)])
        for bad in ["tone", "tone:", "tone:5", "tone:20001", "tone:abc", "silence:", "silence:x", "file", "file:"] {
            #expect(throws: MediaBackendError.self, "\(bad)") { try sources.prepare(bad) }
            if case .badArgument? = Self.error(sources, bad) {} else { Issue.record("\(bad) should be a bad argument") }
        }
        #expect(Self.error(sources, "pulse") == .unknown("pulse"))  // a device backend: registered by ConfIO
        #expect(Self.error(sources, "") == .unknown(""))

        let sinks: BackendRegistry<any AudioSink, Void> = MediaBackends.generatedAudioSinks()
        #expect(try sinks.prepare("none")(noDevices) is NoAudioSink)
        let video: BackendRegistry<(any VideoSource)?, Void> = MediaBackends.generatedVideoSources()
        #expect(try video.prepare("none")(noDevices) == nil)
        let pattern = try #require(try video.prepare("pattern")(noDevices))
        #expect(pattern.newestPicture()?.width == 64)
        #expect(pattern.newestPicture() != pattern.newestPicture())  // it moves
    }

    @Test func aFileIsReadWhenPreparedAndPlayedOnceThenSilence() throws {
        let sources: BackendRegistry<any AudioSource, Void> = MediaBackends.generatedAudioSources()
        let missing = "/nonexistent/conf-\(UUID().uuidString).wav"
        guard case .unreadable(let reason)? = Self.error(sources, "file:" + missing) else { Issue.record("not unreadable"); return }
        #expect(reason.contains(missing))

        let path = FileManager.default.temporaryDirectory.appendingPathComponent("conf-backend-\(UUID().uuidString).wav").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try WAVWriter(path: path)
        try writer.append([Int16](repeating: 1000, count: 1500))
        writer.close()
        let open = try sources.prepare("file:" + path)
        try FileManager.default.removeItem(atPath: path)  // read when prepared: opening needs it no more
        let source = try open(noDevices)
        let clock = ManualClock(.zero)
        var frames = source.frames(now: clock.now())
        clock.advance(by: .milliseconds(40))
        frames += source.frames(now: clock.now())
        #expect(frames.count == 3)
        #expect(frames[0].allSatisfy { $0 == 1000 })
        #expect(frames[1].prefix(540).allSatisfy { $0 == 1000 } && frames[1].dropFirst(540).allSatisfy { $0 == 0 })
        #expect(frames[2].allSatisfy { $0 == 0 })
    }

    @Test func aTestDoubleRegistersTheSameWayAndTheNameSplitsAtTheFirstColon() throws {
        var registry = BackendRegistry<String, Int>()
        registry.register("fake") { argument throws(MediaBackendError) in
            { context in "fake(\(argument ?? "nil")) with \(context.devices)" }
        }
        let context = BackendContext(devices: 7, video: VideoFormat(width: 2, height: 2, framesPerSecond: 1))
        #expect(try registry.prepare("fake")(context) == "fake(nil) with 7")
        #expect(try registry.prepare("fake:")(context) == "fake() with 7")
        #expect(try registry.prepare("fake:/a:b.wav")(context) == "fake(/a:b.wav) with 7")
        #expect(BackendRegistry<String, Int>.split("pulse:alsa_input.usb") == ("pulse", "alsa_input.usb"))
    }

    private static func error<Made>(_ registry: BackendRegistry<Made, Void>, _ text: String) -> MediaBackendError? {
        do throws(MediaBackendError) {
            _ = try registry.prepare(text)
            return nil
        } catch {
            return error
        }
    }
}

/// `pattern:clock` draws the clock's milliseconds (mod 2^24) in 24 cells, most significant first.
@Suite struct ClockPatternTests {
    @Test func thePictureCarriesTheMillisecondItWasMade() throws {
        let sources = MediaBackends.generatedVideoSources() as BackendRegistry<(any VideoSource)?, Void>
        let clock = ManualClock(Instant(nanoseconds: 5_000_000_000 + 0xA5_3C_96 * 1_000_000 + 400_000))
        let open = try sources.prepare("pattern:clock")
        let source = try #require(try open(BackendContext(devices: (), video: VideoFormat(width: 240, height: 80, framesPerSecond: 30), clock: clock)))
        let picture = try #require(source.newestPicture())
        var stamp = 0
        for cell in 0..<24 {
            let (row, column) = (cell / 12, cell % 12)
            let luma = picture.y[(row * 40 + 20) * 240 + column * 20 + 10]
            stamp = stamp << 1 | (luma > 128 ? 1 : 0)
        }
        #expect(stamp == (5_000 + 0xA5_3C_96) & 0xFF_FFFF, "read back \(String(stamp, radix: 16))")
        clock.advance(by: .milliseconds(1))
        #expect(source.newestPicture() != picture, "a millisecond later, another picture")
        #expect(throws: MediaBackendError.self) { try sources.prepare("pattern:clockwork") }
    }
}
