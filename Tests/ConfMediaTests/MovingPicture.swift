import ConfMedia

/// A test picture that costs bits: a seeded random texture that pans, a square that travels, and
/// noise that differs every frame, so that a constant-bit-rate encoder spends what it is given
/// and a decoder that lost track of its references shows it in the PSNR.
struct MovingPicture {
    let width: Int
    let height: Int
    /// Twice the picture's width, so that the pan never runs off its end.
    private let texture: [UInt8]
    /// Noise in -8...7, read from a different place each frame (a prime stride apart).
    private let noise: [Int8]
    private var index = 0

    init(width: Int = 320, height: Int = 240, seed: UInt64 = 7) {
        self.width = width
        self.height = height
        var state = seed
        func next() -> UInt8 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        var texture: [UInt8] = []
        texture.reserveCapacity(width * 2 * height)
        for _ in 0..<(width * 2 * height) { texture.append(next()) }
        var noise: [Int8] = []
        noise.reserveCapacity(width * height * 2)
        for _ in 0..<(width * height * 2) { noise.append(Int8(next() >> 4) - 8) }
        self.texture = texture
        self.noise = noise
    }

    mutating func next() -> VideoFrame {
        defer { index += 1 }
        var y = [UInt8](repeating: 0, count: width * height)
        let pan = index % width
        let square = height / 4
        let sx = (index * 5) % (width - square), sy = (index * 3) % (height - square)
        let noiseStart = (index * 7919) % (width * height)
        for row in 0..<height {
            for column in 0..<width {
                let n = Int(noise[noiseStart + row * width + column])
                var luma = 40 + Int(texture[row * width * 2 + column + pan]) / 2 + n
                if column >= sx && column < sx + square && row >= sy && row < sy + square { luma = 220 + n }
                y[row * width + column] = UInt8(clamping: luma)
            }
        }
        let cw = (width + 1) / 2, ch = (height + 1) / 2
        let u = (0..<(cw * ch)).map { UInt8(truncatingIfNeeded: 96 + ($0 % cw) / 4) }
        let v = (0..<(cw * ch)).map { UInt8(truncatingIfNeeded: 160 - ($0 / cw) / 4) }
        return VideoFrame(width: width, height: height, y: y, u: u, v: v)
    }
}
