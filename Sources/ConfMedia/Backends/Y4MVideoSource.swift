/// `--video-source file:PATH.y4m`: a recorded clip, looped, one frame each time a picture is
/// asked for (so the encoder's frame rate sets the pace, and a run is the same every time), scaled
/// to the room's size when the file has another.
/// Threading: the event loop thread only.
public final class Y4MVideoSource: VideoSource {
    private let reader: Y4MReader
    private let width: Int
    private let height: Int

    public init(path: String, width: Int, height: Int) throws(Y4MHeader.Problem) {
        reader = try Y4MReader(path: path)
        self.width = width
        self.height = height
    }

    public func newestPicture() -> VideoFrame? {
        guard let frame = reader.nextFrame() else { return nil }
        guard frame.width != width || frame.height != height else { return frame }
        let planes = frame.y + frame.u + frame.v
        return planes.withUnsafeBufferPointer { bytes in
            PixelConversion.toI420(bytes, format: .i420, width: frame.width, height: frame.height, targetWidth: width, targetHeight: height)
        }
    }

    public var isLost: Bool { false }
    public func close() {}
}
