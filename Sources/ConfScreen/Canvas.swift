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
            cells[row * columns + at] = Cell(text: String(character), style: style)
            if width == 2 { cells[row * columns + at + 1] = Cell(text: "", style: style) }
            at += width
        }
        return at - column
    }

    /// Fills columns column..<column+width of `row` with spaces in `style` (a bar's background).
    public mutating func fill(row: Int, column: Int = 0, width: Int? = nil, style: CellStyle) {
        guard row >= 0, row < rows else { return }
        let start = max(0, column)
        let end = min(columns, column + (width ?? columns))
        for at in start..<max(start, end) { cells[row * columns + at] = Cell(text: " ", style: style) }
    }

    /// Marks a rectangle as drawn by someone else.
    public mutating func markForeign(row: Int, column: Int, rows height: Int, columns width: Int) {
        for r in max(0, row)..<min(rows, row + height) {
            for c in max(0, column)..<min(columns, column + width) { cells[r * columns + c] = Cell(text: " ", style: .plain, foreign: true) }
        }
    }

    /// Row `row` as plain text (tests, and the screen's own checks).
    public func text(row: Int) -> String { (0..<columns).map { self[row, $0].text }.joined() }
}
