import ConfCore
import ConfIO
import ConfMedia

/// Video in the terminal (`--video-view terminal`): the alternate screen, each peer's newest
/// picture in a grid with its name under it, and the last event line at the bottom. Event lines
/// go to the bottom line instead of scrolling over the pictures. Names come from the network and
/// are drawn escaped (`TerminalEscape`); the bottom line is already `TerminalText`.
final class TerminalView {
    private var status = TerminalText(trusted: "")
    private var active = false

    func start() {
        active = true
        Console.out("\u{1B}[?1049h\u{1B}[?25l\u{1B}[2J", terminator: "")
    }

    func show(_ line: TerminalText) { status = line }

    /// Draws `pictures` (name, newest picture if any) and the status line.
    func render(_ pictures: [(name: String, picture: VideoFrame?)]) {
        guard active else { return }
        let size = terminalSize() ?? (80, 24)
        var out = "\u{1B}[H"
        let cells = TerminalRenderer.grid(count: max(1, pictures.count), columns: size.columns, rows: max(2, size.rows - 1))
        for (cell, item) in zip(cells, pictures) {
            if let picture = item.picture {
                out += TerminalRenderer.draw(picture, row: cell.row, column: cell.column, columns: cell.columns, rows: max(1, cell.rows - 1))
            }
            out += "\u{1B}[\(cell.row + cell.rows - 1);\(cell.column)H\u{1B}[K" + TerminalEscape.escape(item.name)
        }
        out += "\u{1B}[\(size.rows);1H\u{1B}[K" + String(status.rendered.prefix(size.columns))
        Console.out(out, terminator: "")
    }

    func stop() {
        guard active else { return }
        active = false
        Console.out("\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l", terminator: "")
    }
}
