import ConfCore

/// A screen's worth of cells to draw, written by the layout and compared by `ScreenRenderer`
/// with what the terminal shows. Pure.
///
/// Invariant: a cell holds one character of width 1 or 2, or "" when it is the right half of the
/// wide character before it. Text is put through `TerminalEscape` on its way in, so no control or
/// format character from the network can reach a cell, whoever forgot to escape it.
public struct Canvas: Equatable, Sendable {
    public struct Cell: Equatable, Sendable {
        public var text: String
        public var style: CellStyle
        /// Drawn by someone else (the video grid's pictures): the renderer leaves it alone.
        public var foreign = false

        public static let blank = Cell(text: " ", style: .plain)
    }

    public let columns: Int
    public let rows: Int
    public private(set) var cells: [Cell]

    public init(columns: Int, rows: Int) {
        self.columns = max(0, columns)
        self.rows = max(0, rows)
        cells = Array(repeating: .blank, count: self.columns * self.rows)
    }

    public subscript(row: Int, column: Int) -> Cell { cells[row * columns + column] }

    /// Writes `text` from (row, column), both from 0, clipped at `width` columns (the row's end
    /// by default); returns the columns it took. A wide character that would be cut is left out.
    @discardableResult
    public mutating func put(_ text: String, row: Int, column: Int, width: Int? = nil, style: CellStyle = .plain) -> Int {
        guard row >= 0, row < rows, column >= 0, column < columns else { return 0 }
        let end = min(columns, column + (width ?? columns))
        var at = column
        for character in TerminalEscape.escape(text) {
            let width = CellWidth.of(character)
            if width == 0 { continue }
            if at + width > end { break }
            place(Cell(text: String(character), style: style), row: row, column: at)
            if width == 2 { place(Cell(text: "", style: style), row: row, column: at + 1) }
            at += width
        }
        return at - column
    }

    /// Fills columns column..<column+width of `row` with spaces in `style` (a bar's background).
    public mutating func fill(row: Int, column: Int = 0, width: Int? = nil, style: CellStyle) {
        guard row >= 0, row < rows else { return }
        let start = max(0, column)
        let end = min(columns, column + (width ?? columns))
        for at in start..<max(start, end) { place(Cell(text: " ", style: style), row: row, column: at) }
    }

    /// Marks a rectangle as drawn by someone else.
    public mutating func markForeign(row: Int, column: Int, rows height: Int, columns width: Int) {
        for r in max(0, row)..<min(rows, row + height) {
            for c in max(0, column)..<min(columns, column + width) { place(Cell(text: " ", style: .plain, foreign: true), row: r, column: c) }
        }
    }

    /// Writes one cell and keeps the invariant: a wide character it cuts in half (the box of the
    /// help over a name in CJK, say) leaves a space in its other half, never half a character.
    private mutating func place(_ cell: Cell, row: Int, column: Int) {
        let index = row * columns + column
        if cells[index].text.isEmpty, !cell.text.isEmpty, column > 0 {  // over a right half: its left half goes
            cells[index - 1].text = " "
        }
        cells[index] = cell
        let isWide = cell.text.first.map { CellWidth.of($0) == 2 } ?? false
        if column + 1 < columns, cells[index + 1].text.isEmpty, !isWide {  // over a left half: its right half goes
            cells[index + 1].text = " "
        }
    }

    /// Row `row` as plain text (tests, and the screen's own checks).
    public func text(row: Int) -> String { (0..<columns).map { self[row, $0].text }.joined() }
}
