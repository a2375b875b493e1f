import ConfMedia

/// `--video-source v4l2:/dev/videoN`: a V4L2 camera read on the event loop as frames arrive; the
/// newest picture is kept for the encoder's next frame time.
/// Threading: the event loop thread only.
public final class CameraVideoSource: VideoSource {
    private var camera: V4L2Camera?
    private var latest: VideoFrame?
    public private(set) var isLost = false
    /// What a camera is asked for when it can: people expect 30 frames a second from a webcam.
    public static let preferredFramesPerSecond = 30
    public let framesPerSecond: Int?
    /// The camera's mode and name, for people (`V4L2Camera`), and its device.
    public let mode: String
    public let name: String
    public let path: String

    public init(loop: EventLoop, path: String, format: VideoFormat) throws(V4L2Camera.Failure) {
        let camera = try V4L2Camera(loop: loop, path: path, width: format.width, height: format.height,
                                    framesPerSecond: format.framesPerSecond)
        framesPerSecond = camera.framesPerSecond
        mode = camera.mode
        name = camera.name
        self.path = path
        camera.onFrame = { [weak self] frame in self?.latest = frame }
        camera.onLost = { [weak self] in
            self?.isLost = true
            self?.close()
        }
        self.camera = camera
    }

    public func newestPicture() -> VideoFrame? { latest }

    public func close() {
        camera?.close()
        camera = nil
        latest = nil
    }
}
