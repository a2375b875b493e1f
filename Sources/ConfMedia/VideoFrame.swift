#if canImport(Glibc)
import Glibc
#endif

/// An I420 (YUV 4:2:0 planar) picture: a full-size luma plane and two half-size chroma planes.
public struct VideoFrame: Equatable, Sendable {
    public let width: Int
    public let height: Int
    public var y: [UInt8]
    public var u: [UInt8]
    public var v: [UInt8]

    public init(width: Int, height: Int, y: [UInt8], u: [UInt8], v: [UInt8]) {
        self.width = width
        self.height = height
        self.y = y
        self.u = u
        self.v = v
    }

    public var chromaWidth: Int { (width + 1) / 2 }
    public var chromaHeight: Int { (height + 1) / 2 }

    /// Peak signal-to-noise ratio of the luma planes in dB (infinity when identical).
    public func lumaPSNR(against other: VideoFrame) -> Double {
        guard width == other.width, height == other.height, !y.isEmpty else { return 0 }
        var squared = 0.0
        for i in y.indices {
            let d = Double(y[i]) - Double(other.y[i])
            squared += d * d
        }
        guard squared > 0 else { return .infinity }
        let mse = squared / Double(y.count)
        return 10 * log10(255 * 255 / mse)
    }
}
