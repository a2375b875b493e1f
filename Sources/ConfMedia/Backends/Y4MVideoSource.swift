/// `--video-source file:PATH.y4m`: a recorded clip, looped, one frame each time a picture is
/// asked for (so the encoder's frame rate sets the pace, and a run is the same every time), scaled
/// (and cropped to the room's shape) to the room's size when the file has another. The call runs
/// at the clip's frame rate (its `F` field, 1 to 60 a second), 15 when it names none.
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
        reader.nextFrame().map { PixelConversion.scaled($0, width: width, height: height) }
    }

    public var isLost: Bool { false }

    public var framesPerSecond: Int? {
        guard let rate = reader.header.rate, rate.numerator > 0, rate.denominator > 0 else { return nil }
        return min(60, max(1, Int((Double(rate.numerator) / Double(rate.denominator)).rounded())))
    }
    public func close() {}
}
