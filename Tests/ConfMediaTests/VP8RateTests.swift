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
}
