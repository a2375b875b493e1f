internal import CV4L2Shims
import ConfMedia
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
        /// In the formats conf reads (YUYV, NV12, YU12, MJPEG), with the most frames a second at
        /// each size (0: the driver does not say).
        public var modes: [CameraModeChoice.Mode]
        /// The one `--video-source auto` picks: the first that offers a format conf reads.
        public var isDefault: Bool
    }

    /// The shim's format codes and their names, as `conf devices` shows them.
    private static let formats: [(code: Int32, name: String)] = [
        (Int32(CONF_V4L2_YUYV), "YUYV"), (Int32(CONF_V4L2_NV12), "NV12"), (Int32(CONF_V4L2_I420), "YU12"), (Int32(CONF_V4L2_MJPEG), "MJPEG"),
    ]

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
    static func formatCode(_ name: String) -> Int32 { formats.first { $0.name == name }?.code ?? 0 }

    /// A format's name for the shim's code; nil for one conf does not read.
    static func formatName(_ code: Int32) -> String? { formats.first { $0.code == code }?.name }

    private static func mode(_ mode: conf_v4l2_mode) -> CameraModeChoice.Mode? {
        formatName(mode.format).map { .init(format: $0, width: Int(mode.width), height: Int(mode.height), fps: Int(mode.fps)) }
    }
}
