import ConfCallMedia
import ConfCore
import ConfMedia
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
}
