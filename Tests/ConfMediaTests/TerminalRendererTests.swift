import ConfMedia
import Testing

@Suite struct TerminalRendererTests {
    /// A 4x4 frame: top half white, bottom half black (limited range).
    static let frame = VideoFrame(width: 4, height: 4, y: [235, 235, 235, 235, 235, 235, 235, 235, 16, 16, 16, 16, 16, 16, 16, 16],
                                  u: [128, 128, 128, 128], v: [128, 128, 128, 128])

    @Test func twoPixelsPerCellInTrueColour() {
        let text = TerminalRenderer.draw(Self.frame, row: 3, column: 5, columns: 4, rows: 10)
        // 4 wide keeps the aspect: 4 columns x 2 rows of cells (4 pixel rows).
        #expect(text.components(separatedBy: "▀").count - 1 == 8)
        #expect(text.hasPrefix("\u{1B}[3;5H"))
        #expect(text.contains("\u{1B}[4;5H") && !text.contains("\u{1B}[5;5H"))
        #expect(text.contains("38;2;255;255;255;48;2;255;255;255m▀"))  // white above white
        #expect(text.contains("38;2;0;0;0;48;2;0;0;0m▀"))  // black above black
    }

    @Test func tallBoxesKeepTheAspectRatio() {
        let wide = VideoFrame(width: 64, height: 16, y: Array(repeating: 128, count: 1024), u: Array(repeating: 128, count: 256), v: Array(repeating: 128, count: 256))
        let text = TerminalRenderer.draw(wide, row: 1, column: 1, columns: 80, rows: 4)
        // 4 rows high (8 pixel rows) -> 32 columns for a 4:1 picture.
        #expect(text.components(separatedBy: "▀").count - 1 == 32 * 4)
    }

    @Test func aBlankBoxIsSpacesOnEachOfItsRows() {
        let out = TerminalRenderer.blank(row: 3, column: 5, columns: 4, rows: 2)
        #expect(out == "\u{1B}[3;5H    \u{1B}[4;5H    ")
        #expect(TerminalRenderer.blank(row: 1, column: 1, columns: 0, rows: 3).isEmpty)
    }

    @Test func gridsSplitTheScreen() {
        let cells = TerminalRenderer.grid(count: 3, columns: 80, rows: 24)
        #expect(cells.count == 3)
        #expect(cells[0].row == 1 && cells[1].column == 41 && cells[2].row == 13)
        #expect(TerminalRenderer.grid(count: 0, columns: 80, rows: 24).isEmpty)
    }
}
