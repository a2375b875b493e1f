import ConfMedia
import Testing

@Suite struct PixelConversionTests {
    @Test func yuyvBecomesI420() throws {
        // 4x2 YUYV: Y ramps, U 100, V 200.
        var bytes: [UInt8] = []
        for row in 0..<2 { for pair in 0..<2 { bytes += [UInt8(row * 40 + pair * 20), 100, UInt8(row * 40 + pair * 20 + 10), 200] } }
        let frame = try #require(bytes.withUnsafeBufferPointer {
            PixelConversion.toI420($0, format: .yuyv, width: 4, height: 2, targetWidth: 4, targetHeight: 2)
        })
        #expect(frame.y == [0, 10, 20, 30, 40, 50, 60, 70])
        #expect(frame.u == [100, 100] && frame.v == [200, 200])
    }

    @Test func nv12AndI420ScaleDown() throws {
        // 4x4 luma 0..15, chroma 2x2.
        let luma = (0..<16).map { UInt8($0) }
        let nv12 = luma + [10, 20, 11, 21, 12, 22, 13, 23]
        let i420 = luma + [10, 11, 12, 13] + [20, 21, 22, 23]
        let a = try #require(nv12.withUnsafeBufferPointer { PixelConversion.toI420($0, format: .nv12, width: 4, height: 4, targetWidth: 2, targetHeight: 2) })
        let b = try #require(i420.withUnsafeBufferPointer { PixelConversion.toI420($0, format: .i420, width: 4, height: 4, targetWidth: 2, targetHeight: 2) })
        // A box filter: each output pixel is its 2x2 block's mean (0 1 4 5 -> 2.5), not one sample of it.
        #expect(a == b)
        for (pixel, topLeft) in zip(a.y, [0, 2, 8, 10]) { #expect(abs(Int(pixel) - (topLeft + 2)) <= 1, "\(a.y)") }
        #expect(abs(Int(a.u[0]) - 11) <= 1 && abs(Int(a.v[0]) - 21) <= 1, "\(a.u) \(a.v)")
    }

    /// A 16:9 picture for a 4:3 room: its sides go (the centre is kept at its shape), and a 4:3 one
    /// for a 16:9 room loses its top and bottom.
    @Test func anotherShapeIsCroppedAboutItsCentreNotSqueezed() throws {
        // 16x9 I420, luma 0 in the outer two columns each side, 200 in the 12 between.
        let wide = (0..<9).flatMap { _ in (0..<16).map { column in UInt8(column < 2 || column >= 14 ? 0 : 200) } }
            + [UInt8](repeating: 128, count: 2 * 8 * 5)
        let narrow = try #require(wide.withUnsafeBufferPointer {
            PixelConversion.toI420($0, format: .i420, width: 16, height: 9, targetWidth: 8, targetHeight: 6)
        })
        #expect(narrow.y.allSatisfy { $0 == 200 }, "the black sides are cropped away: \(narrow.y)")
        // 8x8 I420, luma 0 in the top and bottom two rows, 200 between.
        let tall = (0..<8).flatMap { row in [UInt8](repeating: row < 2 || row >= 6 ? 0 : 200, count: 8) } + [UInt8](repeating: 128, count: 2 * 16)
        let flat = try #require(tall.withUnsafeBufferPointer {
            PixelConversion.toI420($0, format: .i420, width: 8, height: 8, targetWidth: 8, targetHeight: 4)
        })
        #expect(flat.y.allSatisfy { $0 == 200 }, "the black top and bottom are cropped away: \(flat.y)")
    }

    @Test func shortBuffersAreRefused() {
        let bytes = [UInt8](repeating: 0, count: 10)
        #expect(bytes.withUnsafeBufferPointer { PixelConversion.toI420($0, format: .yuyv, width: 4, height: 4, targetWidth: 4, targetHeight: 4) } == nil)
    }
}
