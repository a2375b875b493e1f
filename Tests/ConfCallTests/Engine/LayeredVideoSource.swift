import ConfCall
import ConfCore
import ConfWire

/// Made-up VP8 frames in libvpx's 3-layer pattern (layers 0, 2, 1, 2, ...; the first frame of
/// layers 1 and 2 after a base frame is a sync frame), sized as an encoder at the engine's latest
/// `.videoBitrate` would make them: layers 0, 1 and 2 take 40, 20 and 40 % of the rate
/// (`VP8FrameLayer.cumulativeSharePercent`), a key frame twice a base frame. A key frame comes
/// first, every `keyFrameInterval` frames, and after each key-frame request.
final class LayeredVideoSource {
    let framesPerSecond: Int
    let keyFrameInterval: Int
    /// What an encoder starts at before the engine says otherwise, kbit/s.
    var startKbps: Int
    private var index = 0
    private var keyFrameRequestsSeen = 0
    private(set) var framesMade = 0
    private(set) var bytesMade = 0

    init(framesPerSecond: Int = 15, keyFrameInterval: Int = 300, startKbps: Int = 600) {
        self.framesPerSecond = framesPerSecond
        self.keyFrameInterval = keyFrameInterval
        self.startKbps = startKbps
    }

    func nextFrame(captured: Instant, bitrates: [(at: Instant, kbps: Int)], keyFrameRequests: Int,
                   encoding: VideoEncoding = .full) -> CallEngine.Input {
        let kbps = bitrates.last?.kbps ?? startKbps
        let requested = keyFrameRequests > keyFrameRequestsSeen
        keyFrameRequestsSeen = keyFrameRequests
        let key = index % keyFrameInterval == 0 || requested
        if key { index = 0 }
        defer { index += 1 }
        let position = index % 4
        let temporalLayer: UInt8 = [0, 2, 1, 2][position]
        let share = [0.4, 0.2, 0.4][Int(temporalLayer)]
        let framesOfLayer = temporalLayer == 2 ? Double(framesPerSecond) / 2 : Double(framesPerSecond) / 4
        var size = Int(Double(kbps) * 1000 / 8 * share / framesOfLayer)
        if key { size = 2 * Int(Double(kbps) * 1000 / 8 * 0.4 / (Double(framesPerSecond) / 4)) }
        size = max(20, size)
        framesMade += 1
        bytesMade += size
        let layer = VP8FrameLayer(temporalLayer: key ? 0 : temporalLayer, layerSync: key || position == 1 || position == 2, keyFrame: key,
                                  discardable: temporalLayer == 2)
        // Bit 0 of the frame tag is clear on a key frame (RFC 6386 section 9.1).
        let frame = [key ? 0x10 : 0x11] + [UInt8](repeating: UInt8(truncatingIfNeeded: framesMade), count: size - 1)
        return encoding == .small ? .smallVideoFrame(frame, layer: layer, captured: captured)
            : .layeredVideoFrame(frame, layer: layer, captured: captured)
    }
}
