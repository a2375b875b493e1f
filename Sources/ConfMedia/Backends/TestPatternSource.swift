/// A moving test picture: colour bars whose luma ramps and a bright square that travels, so that
/// every frame differs and a decoder's output can be compared with what was sent.
///
/// With `noisy`, grain that changes every frame is laid over it, as a camera's sensor gives in
/// poor light: the plain pattern costs VP8 about a tenth of a 600 kbit/s budget, the noisy one
/// all of it, so that congestion control has something to take away (benchmarks, tests).
public final class TestPatternSource {
    public let width: Int
    public let height: Int
    public let noisy: Bool
    private var index = 0
    /// xorshift64: the grain is the same in every run.
    private var grain: UInt64 = 0x9E37_79B9_7F4A_7C15

    public init(width: Int, height: Int, noisy: Bool = false) {
        self.width = width
        self.height = height
        self.noisy = noisy
    }

    public func nextFrame() -> VideoFrame {
        defer { index += 1 }
        let cw = (width + 1) / 2, ch = (height + 1) / 2
        var y = [UInt8](repeating: 0, count: width * height)
        var u = [UInt8](repeating: 128, count: cw * ch)
        var v = [UInt8](repeating: 128, count: cw * ch)
        let bar = max(1, width / 8)
        let square = max(8, height / 6)
        let sx = (index * 4) % max(1, width - square), sy = (index * 2) % max(1, height - square)
        for row in 0..<height {
            for column in 0..<width {
                var luma = 16 + (column / bar) * 26 + (row * 32 / max(1, height))
                if column >= sx && column < sx + square && row >= sy && row < sy + square { luma = 235 }
                if noisy { luma += Int(nextGrain() & 31) - 16 }
                y[row * width + column] = UInt8(min(235, max(16, luma)))
            }
        }
        for row in 0..<ch {
            for column in 0..<cw {
                let b = (column * 2) / bar
                u[row * cw + column] = UInt8(truncatingIfNeeded: 64 + b * 20)
                v[row * cw + column] = UInt8(truncatingIfNeeded: 192 - b * 16)
            }
        }
        return VideoFrame(width: width, height: height, y: y, u: u, v: v)
    }

    private func nextGrain() -> UInt64 {
        grain ^= grain << 13
        grain ^= grain >> 7
        grain ^= grain << 17
        return grain
    }
}

/// `--video-source pattern`: a new picture each time one is asked for.
extension TestPatternSource: VideoSource {
    public func newestPicture() -> VideoFrame? { nextFrame() }
    public var isLost: Bool { false }
    public func close() {}
}
