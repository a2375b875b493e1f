import ConfCallMedia
import ConfCore
import ConfMedia
import ConfWire
import Foundation
import Synchronization
import Testing

/// A camera whose newest picture the test sets, and which can be unplugged.
final class FakeCamera: VideoSource {
    var picture: VideoFrame?
    var isLost = false
    private(set) var closed = false
    func newestPicture() -> VideoFrame? { picture }
    func close() { closed = true }
}

/// The encoder's completions, held until the test runs them on its own thread (the loop's stand-in).
final class HopQueue: Sendable {
    private let pending = Mutex<[@Sendable () -> Void]>([])
    func hop(_ body: @escaping @Sendable () -> Void) { pending.withLock { $0.append(body) } }
    func run() -> Int {
        let bodies = pending.withLock { bodies in defer { bodies.removeAll() }; return bodies }
        for body in bodies { body() }
        return bodies.count
    }
}

@Suite struct VideoPipelineTests {
    @Test func theNewestPictureIsEncodedAtTheFrameRateAndALostCameraIsReportedOnce() throws {
        let camera = FakeCamera()
        let hops = HopQueue()
        let pipeline = VideoPipeline(source: camera, encoder: try VP8Encoder(width: 64, height: 48, bitrateKbps: 200, framesPerSecond: 10),
                                     framesPerSecond: 10, recordings: nil, hop: hops.hop)
        var encoded: [([UInt8], Instant)] = []
        var issues: [MediaIssue] = []
        pipeline.onEncoded = { encoded.append(($0, $1)) }
        pipeline.onIssue = { issues.append($0) }
        #expect(pipeline.sends)
        let clock = ManualClock(Instant(nanoseconds: 1_000_000_000))
        pipeline.tick(now: clock.now())  // no picture yet: nothing to encode
        camera.picture = TestPatternSource(width: 64, height: 48).nextFrame()
        clock.advance(by: .milliseconds(100))
        let taken = clock.now()
        pipeline.tick(now: taken)
        let deadline = ContinuousClock.now + .seconds(10)
        while hops.run() == 0 && ContinuousClock.now < deadline {}
        clock.advance(by: .milliseconds(5))
        pipeline.tick(now: clock.now())  // handed on at the next tick, with when it was taken
        #expect(encoded.count == 1)
        #expect(encoded.first?.1 == taken)

        camera.isLost = true
        for _ in 0..<3 {
            clock.advance(by: .milliseconds(100))
            pipeline.tick(now: clock.now())
        }
        #expect(issues == [.cameraLost])
        #expect(camera.closed)
        #expect(pipeline.sends == false)
    }

    /// While nobody gets our video (the engine's `.videoWanted(false)`) the camera's pictures are
    /// still taken for our own view, and nothing is encoded; the first frame after is a key frame.
    @Test func nothingIsEncodedWhileNobodyWantsTheVideo() throws {
        let camera = FakeCamera()
        let hops = HopQueue()
        let pipeline = VideoPipeline(source: camera, encoder: try VP8Encoder(width: 64, height: 48, bitrateKbps: 200, framesPerSecond: 10),
                                     framesPerSecond: 10, recordings: nil, hop: hops.hop)
        var encoded: [VP8EncodedFrame] = []
        pipeline.onEncodedFrame = { frame, _ in encoded.append(frame) }
        let pattern = TestPatternSource(width: 64, height: 48)
        let clock = ManualClock(Instant(nanoseconds: 1_000_000_000))
        func runFrames(_ count: Int) {
            for _ in 0..<count {
                camera.picture = pattern.nextFrame()
                pipeline.tick(now: clock.now())
                let deadline = ContinuousClock.now + .seconds(10)
                while pipeline.nextTickDue(now: clock.now()) == clock.now() && ContinuousClock.now < deadline {
                    _ = hops.run()
                    pipeline.tick(now: clock.now())
                }
                clock.advance(by: .milliseconds(100))
            }
        }
        runFrames(3)
        #expect(encoded.count >= 2 && encoded.dropFirst().allSatisfy { !$0.isKeyFrame }, "\(encoded.map(\.isKeyFrame))")
        pipeline.encodes = false
        let before = encoded.count
        runFrames(5)
        #expect(encoded.count == before, "nothing encoded for nobody")
        #expect(pipeline.ownPicture != nil, "our own view still has the camera's picture")
        pipeline.encodes = true
        runFrames(2)
        #expect(encoded.count > before)
        #expect(encoded.dropFirst(before).first?.isKeyFrame == true, "the first frame after is a key frame")
    }

    /// An encode that runs past the frame interval delays the next picture instead of losing it:
    /// the pictures due while the encoder was busy are one picture, taken as soon as it is free
    /// (before, each was skipped and the next waited for its own slot: a 720p encode a little
    /// over 33 ms halved the frame rate).
    @Test func aPictureDueWhileTheEncoderIsBusyIsTakenWhenItIsFree() throws {
        let camera = FakeCamera()
        let hops = HopQueue()
        let pipeline = VideoPipeline(source: camera, encoder: try VP8Encoder(width: 64, height: 48, bitrateKbps: 200, framesPerSecond: 10,
                                                                             dropsFrames: false),
                                     framesPerSecond: 10, recordings: nil, hop: hops.hop)
        var encoded: [Instant] = []
        pipeline.onEncoded = { encoded.append($1) }
        let pattern = TestPatternSource(width: 64, height: 48)
        camera.picture = pattern.nextFrame()
        let clock = ManualClock(Instant(nanoseconds: 1_000_000_000))
        pipeline.tick(now: clock.now())  // the first picture goes to the encoder
        for _ in 0..<2 {  // two more fall due while it is busy (its completion not yet hopped back)
            clock.advance(by: .milliseconds(100))
            camera.picture = pattern.nextFrame()
            pipeline.tick(now: clock.now())
        }
        func waitForTheEncoder() -> Int {
            let deadline = ContinuousClock.now + .seconds(10)
            var ran = 0
            while ran == 0 && ContinuousClock.now < deadline { ran = hops.run() }
            return ran
        }
        #expect(waitForTheEncoder() == 1)
        clock.advance(by: .milliseconds(5))  // before the next picture's slot
        let freed = clock.now()
        pipeline.tick(now: freed)  // hands on the first frame and takes the owed picture
        #expect(encoded.count == 1)
        #expect(waitForTheEncoder() == 1, "the owed picture went to the encoder when it was free")
        clock.advance(by: .milliseconds(5))
        pipeline.tick(now: clock.now())
        #expect(encoded.count == 2 && encoded.last == freed)
        clock.advance(by: .milliseconds(5))
        pipeline.tick(now: clock.now())  // nothing more is owed before the next slot
        #expect(hops.run() == 0 && encoded.count == 2)
    }

    /// A camera swapped in after a portrait clip gives landscape pictures: they are cropped to the
    /// encoder's shape (the encoder is made once), and are the window's own picture.
    @Test func aPictureOfAnotherShapeIsCroppedToTheEncodersSize() throws {
        let camera = FakeCamera()
        let hops = HopQueue()
        let pipeline = VideoPipeline(source: camera, encoder: try VP8Encoder(width: 48, height: 64, bitrateKbps: 200, framesPerSecond: 10),
                                     framesPerSecond: 10, recordings: nil, hop: hops.hop)
        var encoded = 0
        pipeline.onEncoded = { _, _ in encoded += 1 }
        camera.picture = TestPatternSource(width: 64, height: 48).nextFrame()
        let clock = ManualClock(Instant(nanoseconds: 1_000_000_000))
        pipeline.tick(now: clock.now())
        #expect(pipeline.ownPicture.map { [$0.width, $0.height] } == [48, 64])
        let deadline = ContinuousClock.now + .seconds(10)
        while hops.run() == 0 && ContinuousClock.now < deadline {}
        clock.advance(by: .milliseconds(5))
        pipeline.tick(now: clock.now())
        #expect(encoded == 1)
        pipeline.paused = true
        #expect(pipeline.ownPicture == nil, "no own picture while the camera is off")
    }

    /// A recording's IVF header names the size the sender sent (from its key frame), not the room's.
    @Test func aRecordingsHeaderHasTheSendersSize() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("conf-ivf-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let recordings = Recordings(directory: directory, videoSize: (640, 480))
        let encoder = try VP8Encoder(width: 48, height: 64, bitrateKbps: 200, framesPerSecond: 10)
        let key = try #require(try encoder.encode(TestPatternSource(width: 48, height: 64).nextFrame(), keyFrame: true))
        let ann = Participant(id: ParticipantID("p2"), name: "ann", role: .publisher)
        #expect(recordings.video(key.data, rtpTimestamp: 0, ssrc: 1, from: ann, at: Instant(nanoseconds: 0)) == nil)
        recordings.close()
        let file = try #require(try FileManager.default.contentsOfDirectory(atPath: directory).first { $0.hasSuffix(".ivf") })
        let header = [UInt8](try Data(contentsOf: URL(fileURLWithPath: directory + "/" + file)).prefix(16))
        #expect(Int(header[12]) | Int(header[13]) << 8 == 48 && Int(header[14]) | Int(header[15]) << 8 == 64, "\(header)")
    }
}
