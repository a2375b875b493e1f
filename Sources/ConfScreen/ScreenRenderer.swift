import ConfCore
/// Writes a `Canvas` to the terminal as the escape sequences that change only what differs from
/// the previous one: a call screen that ticks its clock rewrites a few cells, not the screen.
/// Pure: it returns the bytes, the caller writes them.
public struct ScreenRenderer: Sendable {
    public let colors: ColorMode
    private var shown: Canvas?
    private var shownCursor: (row: Int, column: Int)??

    public init(colors: ColorMode) { self.colors = colors }

    /// Forgets what the terminal shows: the next frame is drawn whole (after a resize, or when
    /// something else wrote to the screen).
    public mutating func invalidate() {
        shown = nil
        shownCursor = nil
    }

    /// The bytes that turn the previous frame into `canvas`; the cursor ends at `cursor` (row,
    /// column from 0) and visible, or hidden when nil.
    public mutating func frame(_ canvas: Canvas, cursor: (row: Int, column: Int)? = nil) -> String {
        var out = ""
        let previous = shown.flatMap { $0.columns == canvas.columns && $0.rows == canvas.rows ? $0 : nil }
        if previous == nil { out += "\u{1B}[0m\u{1B}[2J" }
        var style: CellStyle?
        for row in 0..<canvas.rows {
            var column = 0
            var cursorAt: Int?  // where the terminal's cursor is on this row, if we know
            while column < canvas.columns {
                var cell = canvas[row, column]
                let before = previous?[row, column]
                // A foreign cell is its owner's to draw, but one that was ours is blanked for it first.
                if cell.foreign, before?.foreign == false { cell = .blank }
                let changed = !cell.foreign && (before.map { $0 != cell || $0.foreign } ?? true)
                guard changed, !cell.text.isEmpty else {
                    column += 1
                    continue
                }
                if cursorAt != column { out += "\u{1B}[\(row + 1);\(column + 1)H" }
                if style != cell.style {
                    out += colors.sequence(for: cell.style)
                    style = cell.style
                }
                out += cell.text
                let width = column + 1 < canvas.columns && canvas[row, column + 1].text.isEmpty ? 2 : 1
                column += width
                cursorAt = column
            }
        }
        if style != nil { out += "\u{1B}[0m" }
        let cursorMoved = shownCursor.map { $0?.row != cursor?.row || $0?.column != cursor?.column } ?? true
        shown = canvas
        shownCursor = .some(cursor)
        guard !out.isEmpty || cursorMoved else { return "" }
        if let cursor {
            out += "\u{1B}[\(cursor.row + 1);\(cursor.column + 1)H\u{1B}[?25h"
        } else {
            out += "\u{1B}[?25l"
        }
        return out
    }
}
