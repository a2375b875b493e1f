internal import CGLib
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
    private var source: UnsafeMutablePointer<GSource>?
    private var pending: [UInt8] = []
    private var box: Unmanaged<CallbackBox>?

    public init(loop: EventLoop, fd: Int32 = 0) {
        self.fd = fd
        let box = Unmanaged.passRetained(CallbackBox { [weak self] in self?.readable() ?? false })
        self.box = box
        let source = g_unix_fd_source_new(fd, GIOCondition(rawValue: G_IO_IN.rawValue | G_IO_HUP.rawValue | G_IO_ERR.rawValue))
        g_source_set_callback(source, unsafeBitCast(runFDBox, to: GSourceFunc.self), box.toOpaque(), nil)
        g_source_attach(source, loop.context)
        self.source = source
    }

    deinit { stop() }

    public func stop() {
        if let source {
            g_source_destroy(source)
            g_source_unref(source)
            self.source = nil
        }
        box?.release()
        box = nil
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
            // Stop later: destroying the source from inside its own callback is not allowed here.
            end?()
            return false
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

/// GUnixFDSourceFunc: (fd, condition, user data) -> gboolean.
private let runFDBox: @convention(c) (Int32, UInt32, UnsafeMutableRawPointer?) -> Int32 = { _, _, data in
    Unmanaged<CallbackBox>.fromOpaque(data!).takeUnretainedValue().body() ? 1 : 0
}
