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
        #expect(a.y == [0, 2, 8, 10] && a == b)
        #expect(a.u == [10] && a.v == [20])
    }

    @Test func shortBuffersAreRefused() {
        let bytes = [UInt8](repeating: 0, count: 10)
        #expect(bytes.withUnsafeBufferPointer { PixelConversion.toI420($0, format: .yuyv, width: 4, height: 4, targetWidth: 4, targetHeight: 4) } == nil)
    }
}
