import ConfDriver
import ConfIO
import ConfMedia
#if canImport(Glibc)
import Glibc
#endif

/// Reading and checking `VideoSettings` from the command line.
extension VideoSettings {
    static func parse(_ context: CommandContext) throws(CommandFailure) -> VideoSettings {
        let sources = MediaBackends.videoSources()
        let text = context.setting("video-source") ?? "auto"
        var settings = VideoSettings(source: try .choose(text, from: sources) { error throws(CommandFailure) in
            if case .unreadable(let reason) = error {
                throw CommandFailure(.usage, code: "bad-video-file", "--video-source \(text): \(reason)")
            }
            throw context.usage("--video-source '\(text)': use auto, v4l2:/dev/videoN, pattern, pattern:noisy, pattern:clock, file:PATH.y4m or none")
        })
        settings.enabled = !context.invocation.flag("no-video")
        if !settings.enabled, let given = context.invocation.value("video-source"), !["auto", "none"].contains(given) {
            throw context.usage("--no-video sends no video, and --video-source \(given) says what to send: give one of them")
        }
        if let text = context.setting("video-bitrate") {
            guard let kbps = Int(text), (50...20_000).contains(kbps) else {
                throw context.usage("--video-bitrate '\(text)': give kilobits per second from 50 to 20000")
            }
            settings.bitrateKbps = kbps
        }
        return settings
    }

    /// A missing camera is found before the room is created (the pipeline opens it once joined).
    func checkDevice() throws(CommandFailure) {
        guard enabled, source.name == "v4l2", let path = source.argument else { return }
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw CommandFailure(.deviceUnavailable, code: "no-camera",
                                 "--video-source v4l2:\(path): \(String(cString: strerror(errno))) — check the device with v4l2-ctl --list-devices")
        }
        guard info.st_mode & S_IFMT == S_IFCHR else {
            throw CommandFailure(.deviceUnavailable, code: "no-camera",
                                 "--video-source v4l2:\(path): not a device — give a camera like /dev/video0 (v4l2-ctl --list-devices)")
        }
    }
}
