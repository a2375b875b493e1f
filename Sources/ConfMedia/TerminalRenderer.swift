/// Draws pictures in a terminal with 24-bit colour half blocks: each character cell shows two
/// pixels, the upper as the foreground of "▀" and the lower as its background. Pictures are
/// scaled to fit a box of `columns` x `rows` cells keeping their aspect ratio (a cell is about
/// twice as tall as wide, so one cell is one pixel wide and two pixels high).
public enum TerminalRenderer {
    /// The escape sequences that draw `frame` whole with its top-left corner at the cursor's row
    /// and column `(row, column)` (1-based), in a box of `columns` x `rows` cells
    /// (`TerminalPicture` draws only what changed since it last drew).
    public static func draw(_ frame: VideoFrame, row: Int, column: Int, columns: Int, rows: Int) -> String {
        var picture = TerminalPicture()
        return picture.draw(frame, row: row, column: column, columns: columns, rows: rows)
    }

    /// The escape sequences that blank a box (a tile whose picture is not to be shown).
    public static func blank(row: Int, column: Int, columns: Int, rows: Int) -> String {
        guard columns > 0, rows > 0 else { return "" }
        let spaces = String(repeating: " ", count: columns)
        return (0..<rows).map { "\u{1B}[\(row + $0);\(column)H" + spaces }.joined()
    }

    /// BT.601 limited-range YUV to RGB for one pixel.
    static func rgb(_ frame: VideoFrame, x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8) {
        let luma = Double(frame.y[y * frame.width + x]) - 16
        let c = (y / 2) * frame.chromaWidth + x / 2
        let u = Double(frame.u[c]) - 128, v = Double(frame.v[c]) - 128
        func clamp(_ value: Double) -> UInt8 { UInt8(max(0, min(255, value.rounded()))) }
        return (clamp(1.164 * luma + 1.596 * v), clamp(1.164 * luma - 0.392 * u - 0.813 * v), clamp(1.164 * luma + 2.017 * u))
    }

    /// Boxes for `count` pictures in a grid filling `columns` x `rows` cells, one row of labels
    /// under each: (row, column, columns, rows) per picture, 1-based.
    public static func grid(count: Int, columns: Int, rows: Int) -> [(row: Int, column: Int, columns: Int, rows: Int)] {
        guard count > 0 else { return [] }
        let across = count <= 1 ? 1 : 2
        let down = (count + across - 1) / across
        let width = columns / across, height = rows / down
        return (0..<count).map { i in
            (row: 1 + (i / across) * height, column: 1 + (i % across) * width, columns: max(1, width - 1), rows: max(1, height - 1))
        }
    }
}
