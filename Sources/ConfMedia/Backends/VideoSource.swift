/// Where the video a participant sends comes from (`--video-source`): pictures at the room's size
/// (or, for a clip, its own shape within it: `pictureSize`).
/// A camera delivers on its own clock and keeps its newest picture; a generated source makes one
/// when asked. The caller asks at its frame rate and encodes what it gets.
///
/// Backends: `v4l2:/dev/videoN` (ConfIO), `pattern` (`TestPatternSource`), `file:PATH.y4m` (`Y4MVideoSource`).
/// Threading: the event loop thread only.
public protocol VideoSource: AnyObject {
    /// The newest picture, or nil when there is none yet.
    func newestPicture() -> VideoFrame?
    /// Whether the device went away; a lost source gives no more pictures and stays lost.
    var isLost: Bool { get }
    func close()
    /// The rate the source delivers pictures at, when it has its own (a camera); nil: as often as asked.
    var framesPerSecond: Int? { get }
    /// The size of its pictures when it is not the room's (a clip sent in its own shape); nil: the room's.
    var pictureSize: (width: Int, height: Int)? { get }
}

extension VideoSource {
    public var framesPerSecond: Int? { nil }
    public var pictureSize: (width: Int, height: Int)? { nil }
}
