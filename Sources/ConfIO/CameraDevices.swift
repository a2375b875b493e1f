internal import CV4L2Shims
#if canImport(Glibc)
import Glibc
#endif

/// The machine's cameras: what `conf devices` lists, and the one `--video-source auto` (the
/// default) sends from. A device is asked what it is and what it offers (VIDIOC_QUERYCAP and the
/// format, size and interval enumerations) without streaming from it.
public enum CameraDevices {
    public struct Camera: Equatable, Sendable {
        public var path: String
        /// The driver's name for it (from the device: escape it before a terminal).
        public var name: String
        public var modes: [Mode]
        /// The one `--video-source auto` picks: the first that offers a format conf reads.
        public var isDefault: Bool
    }

    /// A pixel format conf reads (YUYV, NV12, YU12, MJPEG), a size, and the most frames a second at
    /// it (0: the driver does not say).
    public struct Mode: Equatable, Sendable {
        public var format: String
        public var width: Int
        public var height: Int
        public var framesPerSecond: Int
    }

    /// The V4L2 devices in `directory` (`video0` ... `video63`, in number order) that capture video,
    /// with their modes in the formats conf reads; the first with any is the default.
    public static func list(directory: String = "/dev") -> [Camera] {
        var cameras: [Camera] = []
        for number in 0..<64 {
            if let camera = describe("\(directory)/video\(number)") { cameras.append(camera) }
        }
        if let first = cameras.firstIndex(where: { !$0.modes.isEmpty }) { cameras[first].isDefault = true }
        return cameras
    }

    /// One device, if it is a V4L2 capture device (`isDefault` false: that is for `list` to say).
    public static func describe(_ path: String) -> Camera? {
        var description = conf_v4l2_description()
        guard conf_v4l2_describe(path, &description) == 0, description.captures != 0 else { return nil }
        let name = withUnsafeBytes(of: description.name) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
        let modes = withUnsafeBytes(of: description.modes) { raw in
            Array(raw.bindMemory(to: conf_v4l2_mode.self).prefix(Int(description.mode_count)))
        }.compactMap(mode)
        return Camera(path: path, name: name, modes: modes, isDefault: false)
    }

    /// The shim's code for a format's name (0 for one it does not know).
    static func formatCode(_ format: String) -> Int32 {
        switch format {
        case "YUYV": Int32(CONF_V4L2_YUYV)
        case "NV12": Int32(CONF_V4L2_NV12)
        case "YU12": Int32(CONF_V4L2_I420)
        case "MJPEG": Int32(CONF_V4L2_MJPEG)
        default: 0
        }
    }

    private static func mode(_ mode: conf_v4l2_mode) -> Mode? {
        let format: String
        switch mode.format {
        case Int32(CONF_V4L2_YUYV): format = "YUYV"
        case Int32(CONF_V4L2_NV12): format = "NV12"
        case Int32(CONF_V4L2_I420): format = "YU12"
        case Int32(CONF_V4L2_MJPEG): format = "MJPEG"
        default: return nil
        }
        return .init(format: format, width: Int(mode.width), height: Int(mode.height), framesPerSecond: Int(mode.fps))
    }
}
