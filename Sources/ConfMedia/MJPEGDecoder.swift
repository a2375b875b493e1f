internal import CTurboJPEG

/// JPEG pictures (a camera's MJPEG frames) to I420 with libturbojpeg. Cameras send full-range
/// (JFIF) YCbCr at 4:2:2 or 4:2:0; the planes are brought to 4:2:0 and to the video range VP8 and
/// the rest of conf use (BT.601, luma 16-235). A frame that does not decode cleanly (cut short,
/// damaged, not YCbCr, larger than `maximumSide`) is skipped and counted, never half-shown.
///
/// Threading: one thread at a time.
public final class MJPEGDecoder {
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    public static let maximumSide = 8192
    public private(set) var corruptFrames = 0
    private var handle: tjhandle

    public init() throws(Failure) {
        guard let handle = tjInitDecompress() else { throw Failure(description: "libturbojpeg could not start a decompressor") }
        self.handle = handle
    }

    deinit { tjDestroy(handle) }

    /// The picture in `jpeg`, or nil (counted in `corruptFrames`).
    public func decode(_ jpeg: UnsafeBufferPointer<UInt8>) -> VideoFrame? {
        guard let frame = decodeOrNil(jpeg) else {
            corruptFrames += 1
            // A decompressor that failed may not decode the next frame (seen with libjpeg-turbo
            // 2.1 after a damaged scan): a fresh one costs microseconds.
            if let fresh = tjInitDecompress() {
                tjDestroy(handle)
                handle = fresh
            }
            return nil
        }
        return frame
    }

    private func decodeOrNil(_ jpeg: UnsafeBufferPointer<UInt8>) -> VideoFrame? {
        guard let base = jpeg.baseAddress, jpeg.count > 4 else { return nil }
        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colourSpace: Int32 = 0
        guard tjDecompressHeader3(handle, base, UInt(jpeg.count), &width, &height, &subsampling, &colourSpace) == 0,
              (1...Int32(Self.maximumSide)).contains(width), (1...Int32(Self.maximumSide)).contains(height),
              colourSpace == Int32(TJCS_YCbCr.rawValue) || colourSpace == Int32(TJCS_GRAY.rawValue) else { return nil }
        let gray = subsampling == Int32(TJSAMP_GRAY.rawValue)
        let components = gray ? 1 : 3
        let sizes = (0..<components).map { component in
            Int(tjPlaneWidth(Int32(component), width, subsampling)) * Int(tjPlaneHeight(Int32(component), height, subsampling))
        }
        guard sizes.allSatisfy({ $0 > 0 }) else { return nil }
        // Every decode warning (a frame cut short, a damaged scan) is a failure: a camera's next
        // frame is 33 ms away, better than a smeared one.
        let flags = Int32(TJFLAG_STOPONWARNING)
        var storage = [UInt8](repeating: 0, count: sizes.reduce(0, +))
        let result: Int32 = storage.withUnsafeMutableBufferPointer { storage in
            var offset = 0
            var pointers: [UnsafeMutablePointer<UInt8>?] = sizes.map { size in
                defer { offset += size }
                return storage.baseAddress! + offset
            }
            while pointers.count < 3 { pointers.append(nil) }
            return pointers.withUnsafeMutableBufferPointer { pointers in
                tjDecompressToYUVPlanes(handle, base, UInt(jpeg.count), pointers.baseAddress, width, nil, height, flags)
            }
        }
        guard result == 0 else { return nil }
        return Self.videoRange(storage, planeSizes: sizes, width: Int(width), height: Int(height), subsampling: subsampling)
    }

    /// Full-range planes at the JPEG's subsampling, one after another in `storage` -> a
    /// video-range I420 frame.
    private static func videoRange(_ storage: [UInt8], planeSizes sizes: [Int], width: Int, height: Int, subsampling: Int32) -> VideoFrame {
        let y = storage[0..<sizes[0]].map { lumaRange[Int($0)] }
        let cw = (width + 1) / 2, ch = (height + 1) / 2
        guard sizes.count == 3 else {
            return VideoFrame(width: width, height: height, y: y, u: [UInt8](repeating: 128, count: cw * ch), v: [UInt8](repeating: 128, count: cw * ch))
        }
        let sourceWidth = Int(tjPlaneWidth(1, Int32(width), subsampling)), sourceHeight = Int(tjPlaneHeight(1, Int32(height), subsampling))
        func resample(planeAt start: Int) -> [UInt8] {
            var out = [UInt8](repeating: 128, count: cw * ch)
            for row in 0..<ch {
                let sourceRow = start + min(sourceHeight - 1, row * sourceHeight / ch) * sourceWidth
                for column in 0..<cw {
                    out[row * cw + column] = chromaRange[Int(storage[sourceRow + min(sourceWidth - 1, column * sourceWidth / cw)])]
                }
            }
            return out
        }
        return VideoFrame(width: width, height: height, y: y, u: resample(planeAt: sizes[0]), v: resample(planeAt: sizes[0] + sizes[1]))
    }

    /// 0...255 -> 16...235 (luma) and 16...240 (chroma), rounded.
    private static let lumaRange: [UInt8] = (0..<256).map { UInt8(16 + ($0 * 219 + 127) / 255) }
    private static let chromaRange: [UInt8] = (0..<256).map { UInt8(16 + ($0 * 224 + 127) / 255) }
}
