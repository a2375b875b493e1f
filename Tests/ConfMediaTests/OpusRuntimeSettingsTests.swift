import ConfMedia
import Testing

/// The settings the engine's `.audioEncoding` changes during a call.
@Suite struct OpusRuntimeSettingsTests {
    private func averageBytes(_ encoder: OpusEncoder, frames: Int = 50) throws -> Double {
        let source = ToneGenerator(frequency: 440)
        var total = 0
        for _ in 0..<frames { total += try encoder.encode(source.nextFrame()).count }
        return Double(total) / Double(frames)
    }

    @Test func theBitrateChangesBetweenFrames() throws {
        let encoder = try OpusEncoder(bitrate: 64_000)
        let high = try averageBytes(encoder)
        try encoder.setBitrate(16_000)
        _ = try averageBytes(encoder, frames: 10)  // the rate control settles
        let low = try averageBytes(encoder)
        // 64 kbit/s is 160 bytes a 20 ms frame, 16 kbit/s 40.
        #expect(high > 110 && low < 60, "64 kbit/s: \(high) bytes a frame, 16 kbit/s: \(low)")
    }

    @Test func fecAndExpectedLossAreAccepted() throws {
        let encoder = try OpusEncoder()
        try encoder.setInbandFEC(false)
        try encoder.setExpectedLoss(percent: 0)
        try encoder.setInbandFEC(true)
        try encoder.setExpectedLoss(percent: 25)
        try encoder.setExpectedLoss(percent: 500)  // clamped to 100, not an error
        try encoder.setBitrate(-1)  // clamped to libopus's least
        #expect(try averageBytes(encoder, frames: 5) > 0)
    }
}
