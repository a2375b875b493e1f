import Foundation

/// A small tmpfs in a private mount namespace, held by a `sleep` process: reached through
/// /proc/PID/root, it vanishes with the process (nothing stays mounted on the host). For tests of
/// a disk that fills up.
public final class TinyFilesystem {
    public struct MountFailed: Error, CustomStringConvertible {
        public var description: String { "could not mount a tmpfs in a private mount namespace" }
    }

    /// Mounting needs root (CAP_SYS_ADMIN) and util-linux's unshare.
    public static let available = getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare")

    private let holder = Process()
    private let mountPoint: String
    /// The tmpfs, as any process outside the namespace reaches it.
    public let path: String

    public init(kilobytes: Int = 64) throws {
        mountPoint = FileManager.default.temporaryDirectory.appendingPathComponent("conf-tiny-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        holder.arguments = ["-m", "--propagation", "private", "sh", "-c",
                            "mount -t tmpfs -o size=\(kilobytes)k tmpfs '\(mountPoint)' && echo ready && exec sleep 600"]
        let out = Pipe()
        holder.standardOutput = out
        try holder.run()
        guard String(decoding: out.fileHandleForReading.availableData, as: UTF8.self).contains("ready") else { throw MountFailed() }
        path = "/proc/\(holder.processIdentifier)/root\(mountPoint)"
    }

    deinit {
        holder.terminate()
        holder.waitUntilExit()
        try? FileManager.default.removeItem(atPath: mountPoint)
    }
}
