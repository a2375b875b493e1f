internal import CV4L2Shims
import ConfMedia

/// A V4L2 camera, memory-mapped streaming, read on the event loop when a frame is ready; frames
/// are converted (or, from an MJPEG camera, decoded) to I420 at the size asked for; a JPEG frame
/// that does not decode is skipped (`corruptFrames`). A camera that vanishes calls `onLost` once.
/// The mode is chosen from what the device lists (`CameraModeChoice`): a size that covers the one
/// asked for at the rate asked for, raw before MJPEG; `framesPerSecond` is the rate it runs at.
public final class V4L2Camera {
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    public var onFrame: ((VideoFrame) -> Void)?
    public var onLost: (() -> Void)?
    public let deviceWidth: Int
    public let deviceHeight: Int
    public let framesPerSecond: Int
    /// The mode it captures in, for people: "MJPEG 1280x720 at 30 fps"; the driver's name for the
    /// device (from the device: escape it before a terminal).
    public private(set) var mode = ""
    public private(set) var name = ""
    public var corruptFrames: Int { decoder.corruptFrames }
    private let camera: OpaquePointer
    private let decoder: CapturedFrameDecoder
    private var buffer: [UInt8]
    private var watch: Timer?
    private var open = true

    public init(loop: EventLoop, path: String, width: Int, height: Int, framesPerSecond: Int) throws(Failure) {
        let device = CameraDevices.describe(path)
        let chosen = device.flatMap { CameraModeChoice.best(of: $0.modes, width: width, height: height, fps: framesPerSecond) }
        let rate = min(framesPerSecond, chosen.map { $0.fps > 0 ? $0.fps : framesPerSecond } ?? framesPerSecond)
        self.framesPerSecond = max(1, rate)
        var error = [CChar](repeating: 0, count: 256)
        guard let camera = conf_v4l2_open(path, chosen.map { CameraDevices.formatCode($0.format) } ?? 0, Int32(chosen?.width ?? width),
                                          Int32(chosen?.height ?? height), Int32(self.framesPerSecond), &error, error.count) else {
            throw Failure(description: String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        let format: CapturedFrameDecoder.Format
        switch conf_v4l2_format(camera) {
        case Int32(CONF_V4L2_NV12): format = .raw(.nv12)
        case Int32(CONF_V4L2_I420): format = .raw(.i420)
        case Int32(CONF_V4L2_MJPEG): format = .mjpeg
        default: format = .raw(.yuyv)
        }
        deviceWidth = Int(conf_v4l2_width(camera))
        deviceHeight = Int(conf_v4l2_height(camera))
        mode = "\(CameraDevices.formatName(conf_v4l2_format(camera)) ?? "YUYV") \(deviceWidth)x\(deviceHeight) at \(self.framesPerSecond) fps"
        name = device?.name ?? path
        do {
            decoder = try CapturedFrameDecoder(format: format, width: deviceWidth, height: deviceHeight, targetWidth: width, targetHeight: height)
        } catch {
            conf_v4l2_close(camera)
            throw Failure(description: "\(path): \(error.description)")
        }
        self.camera = camera
        buffer = [UInt8](repeating: 0, count: max(Int(conf_v4l2_frame_size(camera)), deviceWidth * deviceHeight * 2))
        watch = loop.watch(fd: conf_v4l2_fd(camera)) { [weak self] in self?.readable() ?? false }
    }

    deinit { close() }

    public func close() {
        guard open else { return }
        open = false
        watch?.cancel()
        watch = nil
        conf_v4l2_close(camera)
    }

    private func readable() -> Bool {
        let n = buffer.withUnsafeMutableBufferPointer { conf_v4l2_next(camera, $0.baseAddress, $0.count) }
        if n < 0 {
            let lost = onLost
            onLost = nil
            lost?()
            return false
        }
        guard n > 0 else { return true }
        let frame = buffer.withUnsafeBufferPointer { bytes in decoder.picture(from: UnsafeBufferPointer(rebasing: bytes[..<Int(n)])) }
        if let frame { onFrame?(frame) }
        return true
    }
}
