#if canImport(Glibc)
import Glibc
#endif

/// Reads lines from a file descriptor (stdin: the command channel of a scripted call) on the
/// event loop, without blocking it. `onLine` gets each line without its newline; `onEnd` once at
/// end of file or error. Lines longer than 64 KiB are cut.
public final class LineReader {
    public var onLine: ((String) -> Void)?
    public var onEnd: (() -> Void)?
    private let fd: Int32
    private var watch: Timer?
    private var pending: [UInt8] = []

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
            if !pending.isEmpty { onLine?(String(decoding: pending, as: UTF8.self)) }
            pending.removeAll()
            let end = onEnd
            onEnd = nil
            end?()
            return false  // GLib removes the watch
        }
        pending += buffer[..<n]
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
            var line = Array(pending[..<newline])
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            pending.removeSubrange(...newline)
            onLine?(String(decoding: line, as: UTF8.self))
        }
        if pending.count > 65_536 {
            onLine?(String(decoding: pending, as: UTF8.self))
            pending.removeAll()
        }
        return true
    }
}
