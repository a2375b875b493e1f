import CTurboJPEG
import ConfMedia
import Testing

/// MJPEG frames as a camera sends them, made here with libturbojpeg's compressor from RGB pictures
/// whose colours are known, then decoded by the path the camera uses.
struct MJPEGDecoderTests {
    /// A `width` x `height` JPEG of `rgb(x, y)` at `subsampling` (a TJSAMP value), quality 95.
    static func jpeg(width: Int, height: Int, subsampling: TJSAMP, _ rgb: (Int, Int) -> (UInt8, UInt8, UInt8)) -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let (r, g, b) = rgb(x, y)
                pixels[(y * width + x) * 3] = r
                pixels[(y * width + x) * 3 + 1] = g
                pixels[(y * width + x) * 3 + 2] = b
            }
        }
        let handle = tjInitCompress()
        defer { tjDestroy(handle) }
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let result = tjCompress2(handle, pixels, Int32(width), 0, Int32(height), Int32(TJPF_RGB.rawValue), &output, &size,
                                 Int32(subsampling.rawValue), 95, 0)
        defer { tjFree(output) }
        guard result == 0, let output else { return [] }
        return Array(UnsafeBufferPointer(start: output, count: Int(size)))
    }

    static func decode(_ bytes: [UInt8], with decoder: MJPEGDecoder) -> VideoFrame? {
        bytes.withUnsafeBufferPointer { decoder.decode($0) }
    }

    @Test(arguments: [TJSAMP_420, TJSAMP_422, TJSAMP_444])
    func aGreyPictureComesOutInVideoRange(subsampling: TJSAMP) throws {
        let decoder = try MJPEGDecoder()
        let frame = try #require(Self.decode(Self.jpeg(width: 64, height: 48, subsampling: subsampling) { _, _ in (128, 128, 128) }, with: decoder))
        #expect(frame.width == 64 && frame.height == 48)
        #expect(frame.u.count == 32 * 24 && frame.v.count == 32 * 24, "4:2:0 whatever the JPEG's subsampling")
        // Full-range 128 is 126 in video range (16 + 128 * 219 / 255); chroma stays at the middle.
        #expect(frame.y.allSatisfy { abs(Int($0) - 126) <= 2 })
        #expect(frame.u.allSatisfy { abs(Int($0) - 128) <= 2 } && frame.v.allSatisfy { abs(Int($0) - 128) <= 2 })
        #expect(decoder.corruptFrames == 0)
    }

    @Test func aGradientKeepsItsLumaAndColours() throws {
        let decoder = try MJPEGDecoder()
        // Red on the left half, blue on the right; brightness rising down the picture.
        let bytes = Self.jpeg(width: 80, height: 60, subsampling: TJSAMP_422) { x, y in
            let level = UInt8(40 + y * 3)
            return x < 40 ? (level, 0, 0) : (0, 0, level)
        }
        let frame = try #require(Self.decode(bytes, with: decoder))
        // BT.601 luma of the red and blue halves, in video range, at the top and bottom rows.
        func expectedLuma(_ r: Double, _ b: Double) -> Double { 16 + (0.299 * r + 0.114 * b) * 219 / 255 }
        for (row, level) in [(2, 46.0), (57, 211.0)] {
            let red = Double(frame.y[row * 80 + 10]), blue = Double(frame.y[row * 80 + 70])
            #expect(abs(red - expectedLuma(level, 0)) <= 4, "row \(row): red half luma \(red)")
            #expect(abs(blue - expectedLuma(0, level)) <= 4, "row \(row): blue half luma \(blue)")
        }
        // Red has V (Cr) above the middle and U (Cb) below it; blue the other way round.
        let bottom = 28 * 40
        #expect(frame.v[bottom + 5] > 150 && frame.u[bottom + 5] < 128)
        #expect(frame.u[bottom + 35] > 150 && frame.v[bottom + 35] < 128)
    }

    @Test func brokenFramesAreSkippedAndCounted() throws {
        let decoder = try MJPEGDecoder()
        let good = Self.jpeg(width: 64, height: 48, subsampling: TJSAMP_422) { x, y in (UInt8(x * 3), UInt8(y * 5), 90) }
        #expect(Self.decode(good, with: decoder) != nil)
        var random = SeededBytes(seed: 7)
        let cases: [[UInt8]] = [
            [],
            Array(good.prefix(good.count / 2)),                 // cut short
            (0..<4000).map { _ in random.next() },              // noise
            Array(good.prefix(2)) + (0..<4000).map { _ in random.next() },  // a JPEG start, then noise
            Self.withDeclaredSize(good, width: 60_000, height: 60_000),     // a header claiming 60000 x 60000
        ]
        for bytes in cases { #expect(Self.decode(bytes, with: decoder) == nil) }
        #expect(decoder.corruptFrames == cases.count)
        #expect(Self.decode(good, with: decoder) != nil, "the next good frame decodes")
    }

    /// `jpeg` with its SOF0 marker's size fields replaced.
    static func withDeclaredSize(_ jpeg: [UInt8], width: Int, height: Int) -> [UInt8] {
        var bytes = jpeg
        guard let sof = (0..<(bytes.count - 9)).first(where: { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 }) else { return bytes }
        bytes[sof + 5] = UInt8(height >> 8 & 0xFF)
        bytes[sof + 6] = UInt8(height & 0xFF)
        bytes[sof + 7] = UInt8(width >> 8 & 0xFF)
        bytes[sof + 8] = UInt8(width & 0xFF)
        return bytes
    }
}

/// xorshift64, for repeatable noise.
struct SeededBytes {
    var state: UInt64
    init(seed: UInt64) { state = seed | 1 }
    mutating func next() -> UInt8 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return UInt8(truncatingIfNeeded: state)
    }
}

/// The camera's path for MJPEG: decoded, then scaled to the room.
struct CapturedFrameDecoderTests {
    @Test func mjpegFramesComeAtTheRoomsSizeAndBrokenOnesAreCounted() throws {
        let decoder = try CapturedFrameDecoder(format: .mjpeg, width: 160, height: 120, targetWidth: 64, targetHeight: 48)
        let stream: [[UInt8]] = (0..<5).map { (index: Int) -> [UInt8] in
            let level = UInt8(40 * index)
            return MJPEGDecoderTests.jpeg(width: 160, height: 120, subsampling: TJSAMP_422) { _, _ in (level, level, level) }
        }
        var recorded = stream
        recorded[2] = Array(recorded[2].prefix(recorded[2].count - 200))  // one frame cut short, as a USB hiccup leaves it
        let pictures = recorded.map { bytes in bytes.withUnsafeBufferPointer { decoder.picture(from: $0) } }
        #expect(pictures.map { $0 == nil } == [false, false, true, false, false])
        #expect(decoder.corruptFrames == 1)
        for (index, picture) in pictures.enumerated() {
            guard let picture else { continue }
            #expect(picture.width == 64 && picture.height == 48)
            let expected = 16 + (40 * index * 219 + 127) / 255
            #expect(picture.y.allSatisfy { abs(Int($0) - expected) <= 2 }, "frame \(index)")
        }
    }
}
