import ConfCallMedia
import ConfCore
import ConfMedia
import Testing

/// The pipeline hands on each frame's temporal layer with its bytes, and a bitrate change
/// reaches the encoder on its queue.
@Suite struct LayeredVideoPipelineTests {
    @Test func eachEncodedFrameComesWithItsLayer() throws {
        let camera = FakeCamera()
        let hops = HopQueue()
        let encoder = try VP8Encoder(width: 64, height: 48, bitrateKbps: 200, framesPerSecond: 10, temporalLayers: 3)
        let pipeline = VideoPipeline(source: camera, encoder: encoder, framesPerSecond: 10, recordings: nil, hop: hops.hop)
        var bytes: [[UInt8]] = []
        var frames: [VP8EncodedFrame] = []
        pipeline.onEncoded = { data, _ in bytes.append(data) }
        pipeline.onEncodedFrame = { frame, _ in frames.append(frame) }
        let source = TestPatternSource(width: 64, height: 48)
        let clock = ManualClock(Instant(nanoseconds: 1_000_000_000))
        for n in 0..<6 {
            if n == 3 { pipeline.setBitrate(kbps: 100) }
            camera.picture = source.nextFrame()
            pipeline.tick(now: clock.now())
            let deadline = ContinuousClock.now + .seconds(10)
            while hops.run() == 0 && ContinuousClock.now < deadline {}
            clock.advance(by: .milliseconds(100))
        }
        pipeline.tick(now: clock.now())  // hands on the last one
        #expect(frames.map(\.temporalLayer) == [0, 2, 1, 2, 0, 2])
        #expect(frames.map(\.isKeyFrame) == [true, false, false, false, false, false])
        #expect(frames.map(\.data) == bytes)
        #expect(encoder.bitrateKbps == 100)  // set on the encoder's queue, which has run since
    }
}
