/// A camera's buffers, as V4L2 delivers them, to I420 pictures at the room's size: raw formats
/// converted (`PixelConversion`), MJPEG decoded (`MJPEGDecoder`) then scaled. One path for the
/// camera and for tests that feed it recorded frames.
///
/// Threading: one thread at a time.
public final class CapturedFrameDecoder {
    public enum Format: Sendable, Equatable {
        case raw(PixelConversion.Format)
        case mjpeg
    }

    public let format: Format
    private let width: Int, height: Int
    private let targetWidth: Int, targetHeight: Int
    private let jpeg: MJPEGDecoder?

    /// `width` x `height`: what the camera delivers; `targetWidth` x `targetHeight`: the room's size.
    public init(format: Format, width: Int, height: Int, targetWidth: Int, targetHeight: Int) throws(MJPEGDecoder.Failure) {
        self.format = format
        self.width = width
        self.height = height
        self.targetWidth = targetWidth
        self.targetHeight = targetHeight
        jpeg = format == .mjpeg ? try MJPEGDecoder() : nil
    }

    /// Frames that could not be decoded (MJPEG only), skipped.
    public var corruptFrames: Int { jpeg?.corruptFrames ?? 0 }

    public func picture(from bytes: UnsafeBufferPointer<UInt8>) -> VideoFrame? {
        switch format {
        case .raw(let raw):
            return PixelConversion.toI420(bytes, format: raw, width: width, height: height, targetWidth: targetWidth, targetHeight: targetHeight)
        case .mjpeg:
            return jpeg?.decode(bytes).map { PixelConversion.scaled($0, width: targetWidth, height: targetHeight) }
        }
    }
}
