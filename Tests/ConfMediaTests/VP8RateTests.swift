import ConfCore
import ConfMedia
import Testing

/// What the test patterns cost VP8, and that rate control holds a target the picture cannot fit.
@Suite struct VP8RateTests {
    /// kbit/s of `seconds` of the pattern at 15 fps through one encoder.
    static func kbps(noisy: Bool, targetKbps: Int, seconds: Int = 4, dropsFrames: Bool = true) throws -> (kbps: Double, frames: Int) {
        let source = TestPatternSource(width: 320, height: 240, noisy: noisy)
        let encoder = try VP8Encoder(width: 320, height: 240, bitrateKbps: targetKbps, framesPerSecond: 15, dropsFrames: dropsFrames)
        var bytes = 0, frames = 0
        for _ in 0..<(15 * seconds) {
            guard let frame = try encoder.encode(source.nextFrame()) else { continue }
            bytes += frame.data.count
            frames += 1
        }
        return (Double(bytes * 8) / Double(seconds) / 1000, frames)
    }

    @Test func theNoisyPatternTakesTheBudgetThePlainOneLeaves() throws {
        let plain = try Self.kbps(noisy: false, targetKbps: 600)
        let noisy = try Self.kbps(noisy: true, targetKbps: 600)
        #expect(plain.kbps < 300, "plain pattern: \(plain.kbps) kbit/s")
        #expect(noisy.kbps > 400, "noisy pattern: \(noisy.kbps) kbit/s of 600")
    }

    /// A picture far too busy for its target: the output stays near the target (quantizers up to
    /// 56, overshoot 15 %, and frames skipped if need be), instead of filling a link's queue.
    @Test func aLowTargetIsHeldOnABusyPicture() throws {
        let held = try Self.kbps(noisy: true, targetKbps: 40)
        #expect(held.kbps < 40 * 1.5, "\(held.kbps) kbit/s for a 40 kbit/s target")
        #expect(held.frames > 0)
    }

    /// An encoder made for 30 fps given one picture in two (the pipeline skipped the others: a
    /// busy encoder, a slow camera): told when each was taken, its rate control spends the target
    /// on the pictures it gets; counting them as 30 a second it spent about half (before, always).
    @Test func picturesSkippedUpstreamLeaveTheirBitsToTheOthers() throws {
        func kbps(timed: Bool) throws -> Double {
            let source = TestPatternSource(width: 320, height: 240, noisy: true)
            let encoder = try VP8Encoder(width: 320, height: 240, bitrateKbps: 400, framesPerSecond: 30)
            var bytes = 0
            let start = Instant(nanoseconds: 5_000_000_000)
            for index in 0..<(15 * 6) {  // 6 s at 15 fps
                let taken = start + .nanoseconds(Int64(index) * 66_666_667)
                _ = source.nextFrame()  // the picture skipped
                guard let frame = try encoder.encode(source.nextFrame(), capturedAt: timed ? taken : nil) else { continue }
                if index >= 15 { bytes += frame.data.count }  // after the first second
            }
            return Double(bytes * 8) / 5 / 1000
        }
        let timed = try kbps(timed: true), counted = try kbps(timed: false)
        #expect(timed > 300 && timed < 400 * 1.2, "told the capture times: \(timed) kbit/s of 400")
        #expect(counted < timed * 0.75, "counted as 30 a second: \(counted) kbit/s against \(timed)")
    }

    /// A pause (the camera off, the process stopped) is not one very long frame to the rate
    /// control: the pictures after it keep coming.
    @Test func picturesAfterAPauseKeepComing() throws {
        let source = TestPatternSource(width: 320, height: 240, noisy: true)
        let encoder = try VP8Encoder(width: 320, height: 240, bitrateKbps: 400, framesPerSecond: 30, temporalLayers: 3)
        let start = Instant(nanoseconds: 5_000_000_000)
        var after = 0
        for index in 0..<120 {  // 2 s, a 6 s pause, 2 s
            let taken = start + .nanoseconds(Int64(index) * 33_333_333 + (index >= 60 ? 6_000_000_000 : 0))
            if try encoder.encode(source.nextFrame(), capturedAt: taken) != nil, index >= 60 { after += 1 }
        }
        #expect(after >= 45, "\(after) pictures of 60 in the 2 s after the pause")
    }
}

/// Key frames of the encoder's own accord are rare (every 100 s, as libwebrtc): in a call each one
/// goes to every link at once and rate control skips pictures after it; receivers ask with PLIs.
@Suite struct VP8KeyFrameIntervalTests {
    /// The frame indexes that came out as key frames in `seconds` at 15 fps; `asked` forced.
    static func keyFrames(layers: Int, seconds: Int, asked: Set<Int> = []) throws -> [Int] {
        let source = TestPatternSource(width: 160, height: 120)
        let encoder = try VP8Encoder(width: 160, height: 120, bitrateKbps: 200, framesPerSecond: 15, temporalLayers: layers)
        return try (0..<(15 * seconds)).filter { index in
            try encoder.encode(source.nextFrame(), keyFrame: asked.contains(index))?.isKeyFrame == true
        }
    }

    @Test(arguments: [1, 3])
    func aMinuteHasOnlyTheFirstKeyFrameAndThoseAskedFor(layers: Int) throws {
        #expect(try Self.keyFrames(layers: layers, seconds: 60, asked: [400]) == [0, 400])
    }

    @Test func theLayeredEncoderStillMakesOneAfterAHundredSeconds() throws {
        #expect(try Self.keyFrames(layers: 3, seconds: 101) == [0, 1500])
    }
}
