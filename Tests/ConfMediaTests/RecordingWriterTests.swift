import ConfCore
import ConfMedia
import Foundation
import Testing
import TestSupport

func le32(_ bytes: [UInt8], at i: Int) -> Int {
    Int(bytes[i]) | Int(bytes[i + 1]) << 8 | Int(bytes[i + 2]) << 16 | Int(bytes[i + 3]) << 24
}

@Suite struct RecordingWriterTests {
    func temporary(_ name: String) -> String { FileManager.default.temporaryDirectory.appendingPathComponent("conf-\(UUID().uuidString)-\(name)").path }

    @Test(.enabled(if: TinyFilesystem.available, "needs root to mount a tmpfs in a private mount namespace"))
    func aFullDiskStopsTheWAVWithATruthfulHeader() throws {
        let disk = try TinyFilesystem()
        let writer = try WAVWriter(path: disk.path + "/full.wav")
        let tone = ToneGenerator(frequency: 440)
        var written: [Int16] = []
        var failure: RecordingError?
        for _ in 0..<200 where failure == nil {  // 200 frames = 384,000 bytes: far more than 64 KiB
            let frame = tone.nextFrame()
            do { try writer.append(frame) } catch { failure = error }
            written += frame
        }
        #expect(failure?.code == ENOSPC, "\(String(describing: failure))")
        #expect(failure?.reason == "No space left on device")
        try writer.append(tone.nextFrame())  // given up: nothing more, no second error
        writer.close()
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: disk.path + "/full.wav")))
        #expect(le32(bytes, at: 40) == bytes.count - 44, "data size \(le32(bytes, at: 40)) in a file of \(bytes.count)")
        #expect(le32(bytes, at: 4) == bytes.count - 8)
        #expect(bytes.count > 44 && bytes.count % 2 == 0)
        let samples = try WAVFile.read(path: disk.path + "/full.wav")
        #expect(samples == Array(written.prefix(samples.count)))
        #expect(writer.samples == samples.count)
    }

    @Test(.enabled(if: TinyFilesystem.available, "needs root to mount a tmpfs in a private mount namespace"))
    func aFullDiskStopsTheIVFAtAWholeFrameWithATruthfulCount() throws {
        let disk = try TinyFilesystem()
        let writer = try IVFWriter(path: disk.path + "/full.ivf", width: 320, height: 240)
        var failure: RecordingError?
        var appended = 0
        for i in 0..<100 where failure == nil {
            do {
                try writer.append([UInt8](repeating: UInt8(i), count: 3000), timestamp: UInt64(i) * 6000)
                appended += 1
            } catch { failure = error }
        }
        #expect(failure?.code == ENOSPC)
        writer.close()
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: disk.path + "/full.ivf")))
        #expect(le32(bytes, at: 24) == appended)
        #expect(bytes.count == 32 + appended * (12 + 3000), "a partial frame was left: \(bytes.count) bytes for \(appended) frames")
    }

    @Test func theIVFFrameCountIsRightBeforeClose() throws {
        let path = temporary("count.ivf")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try IVFWriter(path: path, width: 320, height: 240)
        for i in 0..<31 { try writer.append([1, 2, 3], timestamp: UInt64(i) * 6000) }  // 2 s at 15 frames/s
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(le32(bytes, at: 24) == 31, "a reader mid-call sees \(le32(bytes, at: 24)) frames")
        writer.close()
    }

    @Test func anExistingFileIsNeverOverwritten() throws {
        let path = temporary("earlier.wav")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data("from an earlier run".utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: RecordingError.self) { try WAVWriter(path: path) }
        #expect(throws: RecordingError.self) { try IVFWriter(path: path, width: 2, height: 2) }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "from an earlier run")
    }
}

@Suite struct RecordingTimelineTests {
    let start = Instant(nanoseconds: 5_000_000_000)

    @Test func videoStartsAtZeroAndFollowsRTPTimeThroughAWrap() {
        var timeline = VideoRecordingTimeline()
        let base: UInt32 = 0xFFFF_F000  // wraps after the first frame
        var times: [UInt64] = []
        for i in 0..<30 {
            times.append(timeline.ticks(rtpTimestamp: base &+ UInt32(i * 6000), ssrc: 7, now: start + .milliseconds(Int64(i) * 66)))
        }
        #expect(times == (0..<30).map { UInt64($0) * 6000 })
    }

    @Test func aNewStreamContinuesByTheWallTimeElapsed() {
        var timeline = VideoRecordingTimeline()
        #expect(timeline.ticks(rtpTimestamp: 1_000, ssrc: 7, now: start) == 0)
        #expect(timeline.ticks(rtpTimestamp: 7_000, ssrc: 7, now: start + .milliseconds(66)) == 6000)
        // The link is set up again 4 s later: new SSRC, new random base (lower, even).
        let after = timeline.ticks(rtpTimestamp: 12, ssrc: 9, now: start + .milliseconds(4066))
        #expect(after == 6000 + 4 * 90_000)
        #expect(timeline.ticks(rtpTimestamp: 6012, ssrc: 9, now: start + .milliseconds(4132)) == after + 6000)
    }

    @Test func aJumpTheClockDoesNotBearOutIsReplacedByWallTime() {
        var timeline = VideoRecordingTimeline()
        _ = timeline.ticks(rtpTimestamp: 0, ssrc: 7, now: start)
        // Ten hours ahead in RTP time, 100 ms later in fact.
        #expect(timeline.ticks(rtpTimestamp: 3_240_000_000, ssrc: 7, now: start + .milliseconds(100)) == 9000)
        // Backwards: still increasing.
        #expect(timeline.ticks(rtpTimestamp: 3_239_000_000, ssrc: 7, now: start + .milliseconds(100)) == 9001)
    }

    @Test func anAudioGapIsFilledWithSilence() {
        var timeline = AudioRecordingTimeline()
        #expect(timeline.silenceBefore(frameAt: start, samples: 960) == 0)
        #expect(timeline.silenceBefore(frameAt: start + .milliseconds(20), samples: 960) == 0)
        #expect(timeline.silenceBefore(frameAt: start + .milliseconds(60), samples: 960) == 0)  // a small step: slack
        // The link was down: 3 s from the end of the last frame (80 ms) to this one.
        #expect(timeline.silenceBefore(frameAt: start + .milliseconds(3080), samples: 960) == 3 * 48_000)
    }
}
