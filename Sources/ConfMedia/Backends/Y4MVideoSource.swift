/// `--video-source file:PATH.y4m`: a recorded clip, looped, one frame each time a picture is
/// asked for (so the encoder's frame rate sets the pace, and a run is the same every time). It is
/// sent in its own shape (a portrait clip stays portrait: its receivers lay tiles out by shape),
/// scaled down to fit the room's size when it is larger, never up. The call runs at the clip's
/// frame rate (its `F` field, 1 to 60 a second), 15 when it names none.
/// Threading: the event loop thread only.
public final class Y4MVideoSource: VideoSource {
    private let reader: Y4MReader
    private let width: Int
    private let height: Int

    public init(path: String, width: Int, height: Int) throws(Y4MHeader.Problem) {
        reader = try Y4MReader(path: path)
        (self.width, self.height) = PixelConversion.fitted(width: reader.header.width, height: reader.header.height, within: (width, height))
    }

    public func newestPicture() -> VideoFrame? {
        reader.nextFrame().map { PixelConversion.scaled($0, width: width, height: height) }
    }

    public var isLost: Bool { false }

    public var pictureSize: (width: Int, height: Int)? { (width, height) }

    public var framesPerSecond: Int? {
        guard let rate = reader.header.rate, rate.numerator > 0, rate.denominator > 0 else { return nil }
        return min(60, max(1, Int((Double(rate.numerator) / Double(rate.denominator)).rounded())))
    }
    public func close() {}
}
