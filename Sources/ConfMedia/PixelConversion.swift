/// Camera pixel formats to I420 at the room's size (nearest-neighbour scaling: cheap, and the
/// encoder smooths what little it costs). A picture of another shape is cropped to the room's
/// about its centre first (a 16:9 camera in a 4:3 room loses its sides), never squeezed.
public enum PixelConversion {
    public enum Format: Sendable { case yuyv, nv12, i420 }

    /// Converts one captured image (`width` x `height`, tightly packed) to an I420 frame of
    /// `targetWidth` x `targetHeight`. Returns nil when `bytes` is too short for the format.
    public static func toI420(_ bytes: UnsafeBufferPointer<UInt8>, format: Format, width: Int, height: Int,
                              targetWidth: Int, targetHeight: Int) -> VideoFrame? {
        let needed: Int
        switch format {
        case .yuyv: needed = width * height * 2
        case .nv12, .i420: needed = width * height + 2 * ((width + 1) / 2) * ((height + 1) / 2)
        }
        guard width > 0, height > 0, bytes.count >= needed else { return nil }
        let cw = (targetWidth + 1) / 2, ch = (targetHeight + 1) / 2
        let sourceCW = (width + 1) / 2, sourceCH = (height + 1) / 2
        // The centred region of the target's shape: (x0, y0) even, so that chroma lines up.
        var cropWidth = width, cropHeight = height
        if width * targetHeight > targetWidth * height {
            cropWidth = max(1, height * targetWidth / max(1, targetHeight))
        } else if width * targetHeight < targetWidth * height {
            cropHeight = max(1, width * targetHeight / max(1, targetWidth))
        }
        let x0 = (width - cropWidth) / 2 & ~1, y0 = (height - cropHeight) / 2 & ~1
        var y = [UInt8](repeating: 0, count: targetWidth * targetHeight)
        var u = [UInt8](repeating: 128, count: cw * ch)
        var v = [UInt8](repeating: 128, count: cw * ch)
        for row in 0..<targetHeight {
            let sy = y0 + row * cropHeight / targetHeight
            for column in 0..<targetWidth {
                let sx = x0 + column * cropWidth / targetWidth
                y[row * targetWidth + column] = format == .yuyv ? bytes[(sy * width + sx) * 2] : bytes[sy * width + sx]
            }
        }
        for row in 0..<ch {
            let sy = min(height - 1, y0 + row * 2 * cropHeight / targetHeight)
            for column in 0..<cw {
                let sx = min(width - 1, x0 + column * 2 * cropWidth / targetWidth)
                let i = row * cw + column
                switch format {
                case .yuyv:
                    let pair = (sy * width + (sx & ~1)) * 2
                    u[i] = bytes[pair + 1]
                    v[i] = bytes[pair + 3]
                case .nv12:
                    let base = width * height + (sy / 2) * sourceCW * 2 + (sx / 2) * 2
                    u[i] = bytes[base]
                    v[i] = bytes[base + 1]
                case .i420:
                    let c = (sy / 2) * sourceCW + sx / 2
                    u[i] = bytes[width * height + c]
                    v[i] = bytes[width * height + sourceCW * sourceCH + c]
                }
            }
        }
        return VideoFrame(width: targetWidth, height: targetHeight, y: y, u: u, v: v)
    }

    /// `frame` at `width` x `height` (itself when it already is).
    public static func scaled(_ frame: VideoFrame, width: Int, height: Int) -> VideoFrame {
        guard frame.width != width || frame.height != height else { return frame }
        let planes = frame.y + frame.u + frame.v
        return planes.withUnsafeBufferPointer {
            toI420($0, format: .i420, width: frame.width, height: frame.height, targetWidth: width, targetHeight: height)
        } ?? frame
    }
}
