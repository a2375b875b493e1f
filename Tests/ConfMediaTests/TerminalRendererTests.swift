import ConfCore
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

    /// A tile redrawn with the same picture writes nothing; with a few cells changed, those only.
    @Test func aTileWritesOnlyWhatChanged() {
        var tile = TerminalPicture()
        var frame = VideoFrame.blank(width: 16, height: 16)
        let first = tile.draw(frame, row: 1, column: 1, columns: 16, rows: 8)
        #expect(first.components(separatedBy: "▀").count - 1 == 16 * 8)
        #expect(first.components(separatedBy: "m").count - 1 == 2, "one colour for every cell, then the reset: \(first.prefix(80))")
        #expect(tile.draw(frame, row: 1, column: 1, columns: 16, rows: 8).isEmpty, "nothing changed")
        frame.y[2] = 40  // cell row 0, column 2 (upper half): 24 luma steps, 28 in RGB, over the tolerance
        for x in 4..<6 { frame.y[3 * 16 + x] = 235 }  // pixel row 3 = cell row 1 (lower half), columns 4 and 5
        let second = tile.draw(frame, row: 1, column: 1, columns: 16, rows: 8)
        #expect(second.components(separatedBy: "▀").count - 1 == 3, "\(second)")
        #expect(second.contains("\u{1B}[2;5H"), "the cursor goes to the changed cells: \(second)")
        tile.forget()
        #expect(tile.draw(frame, row: 1, column: 1, columns: 16, rows: 8).components(separatedBy: "▀").count - 1 == 16 * 8)
    }

    /// The pictures follow the terminal's colours as the screen's text does.
    @Test func withoutTrueColourThePaletteAndWithNoColourTheBrightness() {
        var palette = TerminalPicture(colors: .palette256)
        let inPalette = palette.draw(Self.frame, row: 1, column: 1, columns: 4, rows: 10)
        #expect(inPalette.contains("\u{1B}[38;5;231;48;5;231m▀") && inPalette.contains("\u{1B}[38;5;16;48;5;16m▀"), "\(inPalette)")
        #expect(!inPalette.contains("38;2;"))
        var plain = TerminalPicture(colors: .none)
        let inCharacters = plain.draw(Self.frame, row: 1, column: 1, columns: 4, rows: 10)
        #expect(inCharacters == "\u{1B}[1;1H@@@@\u{1B}[2;1H    ", "white then black, and no colour sequence at all: \(inCharacters)")
    }

    /// However large the box, a picture takes no more cells than it has pixels.
    @Test func aPictureIsNeverDrawnLargerThanItsPixels() {
        let frame = VideoFrame.blank(width: 64, height: 48)
        let text = TerminalRenderer.draw(frame, row: 1, column: 1, columns: 1000, rows: 300)
        #expect(text.components(separatedBy: "▀").count - 1 == 64 * 24)
    }
}
