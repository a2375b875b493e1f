#if canImport(Glibc)
import Glibc
#endif

/// Reads lines from a file descriptor (stdin: the command channel of a scripted call) on the
/// event loop, without blocking it. `onLine` gets each line without its newline (and without a
/// CR before it); `onEnd` once at end of file or error. A line longer than `maxLineBytes` is not
/// delivered: `onTooLong` is called once for it and the rest of it, up to its newline, is skipped.
public final class LineReader {
    public static let maxLineBytes = 65_536

    public var onLine: ((String) -> Void)?
    public var onTooLong: (() -> Void)?
    public var onEnd: (() -> Void)?
    private let fd: Int32
    private var watch: Timer?
    private var pending: [UInt8] = []
    /// Inside a line already reported as too long: bytes are dropped up to its newline.
    private var skipping = false

    public init(loop: EventLoop, fd: Int32 = 0) {
        self.fd = fd
        watch = loop.watch(fd: fd) { [weak self] in self?.readable() ?? false }
    }

    deinit { stop() }

    public func stop() {
        watch?.cancel()
        watch = nil
    }

    private func readable() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = read(fd, &buffer, buffer.count)
        if n <= 0 {
            if n < 0 && (errno == EAGAIN || errno == EINTR) { return true }
            if !pending.isEmpty && !skipping { deliver(pending) }
            pending.removeAll()
            let end = onEnd
            onEnd = nil
            end?()
            return false  // GLib removes the watch
        }
        pending += buffer[..<n]
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
            let line = Array(pending[..<newline])
            pending.removeSubrange(...newline)
            if skipping {
                skipping = false  // the end of the line reported as too long
                continue
            }
            deliver(line)
        }
        if pending.count > Self.maxLineBytes && !skipping {
            skipping = true
            onTooLong?()
        }
        if skipping { pending.removeAll() }
        return true
    }

    private func deliver(_ bytes: [UInt8]) {
        var line = bytes
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        if line.count > Self.maxLineBytes { return onTooLong?() ?? () }
        onLine?(String(decoding: line, as: UTF8.self))
    }
}
