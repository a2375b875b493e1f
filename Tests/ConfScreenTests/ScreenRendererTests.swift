import ConfCore
import Testing
@testable import ConfScreen

struct ScreenRendererTests {
    @Test func theFirstFrameDrawsEverythingAndTheNextOnlyWhatChanged() {
        var renderer = ScreenRenderer(colors: .none)
        var canvas = Canvas(columns: 20, rows: 3)
        canvas.put("call 00:01", row: 0, column: 0)
        let first = renderer.frame(canvas)
        #expect(first.hasPrefix("\u{1B}[0m\u{1B}[2J") && first.contains("call 00:01"))
        canvas.put("call 00:02", row: 0, column: 0)
        let second = renderer.frame(canvas)
        #expect(second == "\u{1B}[1;10H\u{1B}[0m2\u{1B}[0m\u{1B}[?25l")
        #expect(renderer.frame(canvas) == "")
    }

    @Test func aNewSizeDrawsTheWholeScreenAgain() {
        var renderer = ScreenRenderer(colors: .none)
        _ = renderer.frame(Canvas(columns: 10, rows: 2))
        #expect(renderer.frame(Canvas(columns: 12, rows: 2)).contains("\u{1B}[2J"))
    }

    @Test func foreignCellsAreLeftToTheirOwnerAndRedrawnWhenGivenBack() {
        var renderer = ScreenRenderer(colors: .none)
        var canvas = Canvas(columns: 8, rows: 2)
        canvas.markForeign(row: 1, column: 0, rows: 1, columns: 8)
        canvas.put("x", row: 0, column: 0)
        let first = renderer.frame(canvas)
        #expect(!first.contains("\u{1B}[2;"))
        var back = Canvas(columns: 8, rows: 2)
        back.put("x", row: 0, column: 0)
        #expect(renderer.frame(back).contains("\u{1B}[2;1H"))
    }

    @Test func coloursFollowTheTerminal() {
        let style = CellStyle(foreground: CellStyle.Color(255, 0, 0), bold: true)
        #expect(ColorMode.trueColor.sequence(for: style) == "\u{1B}[0;1;38;2;255;0;0m")
        #expect(ColorMode.palette256.sequence(for: style) == "\u{1B}[0;1;38;5;196m")
        #expect(ColorMode.none.sequence(for: style) == "\u{1B}[0;1m")
        #expect(ColorMode.palette256.sequence(for: CellStyle(foreground: CellStyle.Color(128, 128, 128))) == "\u{1B}[0;38;5;244m")
        #expect(ColorMode.from(environment: ["NO_COLOR": "1", "COLORTERM": "truecolor"]) == .none)
        #expect(ColorMode.from(environment: ["COLORTERM": "truecolor"]) == .trueColor)
        #expect(ColorMode.from(environment: ["TERM": "xterm-256color"]) == .palette256)
    }

    @Test func wideCharactersTakeTwoCellsAndAreNotCutInHalf() {
        var canvas = Canvas(columns: 5, rows: 1)
        #expect(canvas.put("漢字漢", row: 0, column: 0) == 4)
        #expect(canvas[0, 1].text == "" && canvas[0, 4].text == " ")
        var renderer = ScreenRenderer(colors: .none)
        #expect(renderer.frame(canvas).contains("漢字 "))
    }

    /// Something drawn over half of a wide character (the help box's edge over a name) leaves a
    /// space in the other half: a row never holds half a character, so it cannot shift.
    @Test func writingOverHalfAWideCharacterLeavesASpaceInTheOtherHalf() {
        var canvas = Canvas(columns: 6, rows: 1)
        canvas.put("漢字漢", row: 0, column: 0)
        canvas.put("x", row: 0, column: 1)  // the right half of 漢
        canvas.put("y", row: 0, column: 2)  // the left half of 字
        #expect(canvas.text(row: 0) == " xy 漢", "\(canvas.text(row: 0))")
        canvas.fill(row: 0, column: 5, width: 1, style: .plain)  // the right half of the last 漢
        #expect(canvas.text(row: 0) == " xy  " + " ")
        canvas.put("漢字", row: 0, column: 0)
        canvas.put("字", row: 0, column: 1)  // across both
        #expect(canvas.text(row: 0) == " 字   ", "\(canvas.text(row: 0))")
        #expect((0..<6).allSatisfy { canvas[0, $0].text != "" || ($0 > 0 && CellWidth.of(Character(canvas[0, $0 - 1].text)) == 2) },
                "every right half follows a wide character")
    }

    @Test func whatComesFromTheNetworkCannotReachTheTerminalRaw() {
        var canvas = Canvas(columns: 40, rows: 1)
        canvas.put("\u{1B}]0;owned\u{07}\u{202E}evil", row: 0, column: 0)
        var renderer = ScreenRenderer(colors: .none)
        let bytes = renderer.frame(canvas)
        #expect(!bytes.contains("\u{1B}]") && !bytes.contains("\u{07}") && !bytes.contains("\u{202E}"))
        #expect(canvas.text(row: 0).hasPrefix("\\e]0;owned\\a\\u202eevil"))
    }
}
