import CYUV

/// Camera pixel formats to I420 at the room's size, through libyuv (its SIMD converters, and a box
/// filter when scaling down). A picture of another shape is cropped to the target's about its
/// centre first (a 16:9 camera in a 4:3 room loses its sides), never squeezed.
public enum PixelConversion {
    public enum Format: Sendable { case yuyv, nv12, i420 }

    /// Converts one captured image (`width` x `height`, tightly packed) to an I420 frame of
    /// `targetWidth` x `targetHeight`. Returns nil when `bytes` is too short for the format.
    public static func toI420(_ bytes: UnsafeBufferPointer<UInt8>, format: Format, width: Int, height: Int,
                              targetWidth: Int, targetHeight: Int) -> VideoFrame? {
        let chromaWidth = (width + 1) / 2, chromaHeight = (height + 1) / 2
        let needed: Int
        switch format {
        case .yuyv: needed = chromaWidth * 4 * height
        case .nv12, .i420: needed = width * height + 2 * chromaWidth * chromaHeight
        }
        guard width > 1, height > 1, targetWidth > 0, targetHeight > 0, let base = bytes.baseAddress, bytes.count >= needed else {
            return nil
        }
        let crop = centredCrop(width: width, height: height, shapeOf: (targetWidth, targetHeight))
        let (x0, y0) = (crop.x, crop.y)
        switch format {
        case .i420:
            let u = base + width * height, v = u + chromaWidth * chromaHeight
            return scale(y: base + y0 * width + x0, u: u + (y0 / 2) * chromaWidth + x0 / 2, v: v + (y0 / 2) * chromaWidth + x0 / 2,
                         stride: width, chromaStride: chromaWidth, width: crop.width, height: crop.height,
                         targetWidth: targetWidth, targetHeight: targetHeight)
        case .yuyv, .nv12:
            // Converted at the crop's size, then scaled (libyuv converts and scales in separate steps).
            var frame = VideoFrame.blank(width: crop.width, height: crop.height)
            let cw = frame.chromaWidth
            frame.y.withUnsafeMutableBufferPointer { y in
                frame.u.withUnsafeMutableBufferPointer { u in
                    frame.v.withUnsafeMutableBufferPointer { v in
                        if format == .yuyv {
                            let stride = chromaWidth * 4
                            _ = YUY2ToI420(base + y0 * stride + x0 * 2, Int32(stride), y.baseAddress, Int32(crop.width),
                                           u.baseAddress, Int32(cw), v.baseAddress, Int32(cw), Int32(crop.width), Int32(crop.height))
                        } else {
                            let uv = base + width * height + (y0 / 2) * chromaWidth * 2 + x0
                            _ = NV12ToI420(base + y0 * width + x0, Int32(width), uv, Int32(chromaWidth * 2), y.baseAddress, Int32(crop.width),
                                           u.baseAddress, Int32(cw), v.baseAddress, Int32(cw), Int32(crop.width), Int32(crop.height))
                        }
                    }
                }
            }
            return scaled(frame, width: targetWidth, height: targetHeight)
        }
    }

    /// `frame` at `width` x `height` (itself when it already is), cropped to that shape first.
    public static func scaled(_ frame: VideoFrame, width: Int, height: Int) -> VideoFrame {
        guard frame.width != width || frame.height != height else { return frame }
        let crop = centredCrop(width: frame.width, height: frame.height, shapeOf: (width, height))
        let cw = frame.chromaWidth
        let chromaOffset = (crop.y / 2) * cw + crop.x / 2
        return frame.y.withUnsafeBufferPointer { y in
            frame.u.withUnsafeBufferPointer { u in
                frame.v.withUnsafeBufferPointer { v in
                    scale(y: y.baseAddress! + crop.y * frame.width + crop.x, u: u.baseAddress! + chromaOffset, v: v.baseAddress! + chromaOffset,
                          stride: frame.width, chromaStride: cw, width: crop.width, height: crop.height, targetWidth: width, targetHeight: height)
                }
            }
        }
    }

    /// The largest even size of a `width` x `height` picture's shape that fits `box` without
    /// scaling up: what a clip of its own shape is sent at.
    public static func fitted(width: Int, height: Int, within box: (width: Int, height: Int)) -> (width: Int, height: Int) {
        guard width > 0, height > 0 else { return box }
        let factor = min(1, Double(box.width) / Double(width), Double(box.height) / Double(height))
        let even = { (value: Double) in max(2, Int(value) & ~1) }
        return (even(Double(width) * factor), even(Double(height) * factor))
    }

    /// The centred region of `shape`'s aspect ratio in a `width` x `height` picture, at even
    /// offsets so that chroma lines up.
    static func centredCrop(width: Int, height: Int, shapeOf shape: (width: Int, height: Int))
        -> (x: Int, y: Int, width: Int, height: Int)
    {
        var cropWidth = width, cropHeight = height
        if width * shape.height > shape.width * height {
            cropWidth = max(2, height * shape.width / max(1, shape.height))
        } else if width * shape.height < shape.width * height {
            cropHeight = max(2, width * shape.height / max(1, shape.width))
        }
        return ((width - cropWidth) / 2 & ~1, (height - cropHeight) / 2 & ~1, cropWidth, cropHeight)
    }

    private static func scale(y: UnsafePointer<UInt8>, u: UnsafePointer<UInt8>, v: UnsafePointer<UInt8>, stride: Int, chromaStride: Int,
                              width: Int, height: Int, targetWidth: Int, targetHeight: Int) -> VideoFrame {
        var frame = VideoFrame.blank(width: targetWidth, height: targetHeight)
        let cw = frame.chromaWidth
        frame.y.withUnsafeMutableBufferPointer { dy in
            frame.u.withUnsafeMutableBufferPointer { du in
                frame.v.withUnsafeMutableBufferPointer { dv in
                    _ = I420Scale(y, Int32(stride), u, Int32(chromaStride), v, Int32(chromaStride), Int32(width), Int32(height),
                                  dy.baseAddress, Int32(targetWidth), du.baseAddress, Int32(cw), dv.baseAddress, Int32(cw),
                                  Int32(targetWidth), Int32(targetHeight), kFilterBox)
                }
            }
        }
        return frame
    }
}

extension VideoFrame {
    /// Black (luma 0, chroma 128) at `width` x `height`.
    public static func blank(width: Int, height: Int) -> VideoFrame {
        let chroma = ((width + 1) / 2) * ((height + 1) / 2)
        return VideoFrame(width: width, height: height, y: [UInt8](repeating: 0, count: width * height),
                          u: [UInt8](repeating: 128, count: chroma), v: [UInt8](repeating: 128, count: chroma))
    }
}
