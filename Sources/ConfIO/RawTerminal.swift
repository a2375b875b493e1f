internal import CConfShims
#if canImport(Glibc)
import Glibc
#endif

/// The terminal held for the call screen: stdin in raw mode (each key as it is pressed, no echo,
/// Ctrl-C a key rather than SIGINT), stdout on the alternate screen, the size followed through
/// SIGWINCH, and stderr caught in a pipe so that a stray message (a library's warning) comes back
/// as a line instead of scribbling over the screen.
///
/// The terminal is given back by `close()`, and by the C side on exit() and on a crash signal
/// (conf_tty.c), so no way out leaves a raw terminal on the alternate screen.
///
/// Threading: the event loop thread only.
public final class RawTerminal {
    /// Bytes typed (a key may be several, a read may hold several keys).
    public var onInput: (([UInt8]) -> Void)?
    /// The terminal's size changed.
    public var onResize: (() -> Void)?
    /// A line something wrote to stderr while the screen was up.
    public var onStderrLine: ((String) -> Void)?
    /// Stdin ended (the terminal went away).
    public var onEnd: (() -> Void)?

    private var input: Timer?
    private var resize: Timer?
    private var stderrLines: LineReader?
    private var stderrReadEnd: Int32 = -1

    /// The alternate screen, the cursor hidden, bracketed paste on (a paste arrives marked, so its
    /// line breaks are not taken for Enter and its letters for keys).
    static let enter = "\u{1B}[?1049h\u{1B}[?25l\u{1B}[?2004h\u{1B}[2J"
    static let leave = "\u{1B}[0m\u{1B}[?2004l\u{1B}[?25h\u{1B}[?1049l"

    /// Whether stdin and stdout are both terminals, as the screen needs.
    public static var available: Bool { isatty(0) == 1 && isatty(1) == 1 }

    /// Nil unless stdin and stdout are both terminals.
    public init?(loop: EventLoop) {
        guard isatty(0) == 1, isatty(1) == 1 else { return nil }
        let readEnd = Self.leave.withCString { conf_tty_take(0, 1, $0, strlen($0)) }
        guard readEnd >= 0 else { return nil }
        stderrReadEnd = readEnd
        write(Self.enter)
        input = loop.watch(fd: 0) { [weak self] in self?.readable() ?? false }
        resize = loop.onSignal(SIGWINCH) { [weak self] in self?.onResize?() }
        let lines = LineReader(loop: loop, fd: readEnd)
        lines.onLine = { [weak self] line in self?.onStderrLine?(line) }
        stderrLines = lines
    }

    deinit { close() }

    /// Columns and rows now (80x24 if the terminal will not say).
    public var size: (columns: Int, rows: Int) { terminalSize(fd: 1) ?? (80, 24) }

    /// Writes `text` to the screen, all of it.
    public func write(_ text: String) { writeAll(text, to: 1) }

    /// The normal screen, the modes and stderr back as they were.
    public func close() {
        input?.cancel()
        resize?.cancel()
        input = nil
        resize = nil
        conf_tty_give_back()  // stderr back, and the pipe's unread lines written to it (escaped)
        stderrLines?.stop()
        stderrLines = nil
        if stderrReadEnd >= 0 {
            Glibc.close(stderrReadEnd)
            stderrReadEnd = -1
        }
    }

    private func readable() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 1024)
        let n = read(0, &buffer, buffer.count)
        if n > 0 {
            onInput?(Array(buffer[..<n]))
            return true
        }
        if n < 0 && (errno == EAGAIN || errno == EINTR) { return true }
        onEnd?()
        return false
    }
}

/// Writes all of `text` to `fd` (again after EINTR); gives up quietly when the reader has gone
/// (a closed pipe, a terminal hung up): nothing useful is left to do then.
public func writeAll(_ text: String, to fd: Int32) {
    var text = text
    text.withUTF8 { buffer in
        var offset = 0
        while offset < buffer.count {
            let n = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
            if n > 0 {
                offset += n
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                return
            }
        }
    }
}
