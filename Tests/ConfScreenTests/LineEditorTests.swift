import Testing
@testable import ConfScreen

struct LineEditorTests {
    private func type(_ text: String, into editor: inout LineEditor) {
        for character in text { _ = editor.handle(.character(character)) }
    }

    @Test func editingMovesTheCursorAndDeletesWhereItIs() {
        var editor = LineEditor()
        type("hello wrld", into: &editor)
        for _ in 0..<3 { _ = editor.handle(.left) }
        _ = editor.handle(.character("o"))
        #expect(editor.line == "hello world" && editor.cursor == 8)
        _ = editor.handle(.control("w"))
        #expect(editor.line == "hello rld" && editor.cursor == 6)
        _ = editor.handle(.home)
        _ = editor.handle(.delete)
        #expect(editor.line == "ello rld" && editor.cursor == 0)
        _ = editor.handle(.end)
        _ = editor.handle(.backspace)
        _ = editor.handle(.control("u"))
        #expect(editor.line == "" && editor.cursor == 0)
    }

    @Test func enterKeepsTheLineInTheHistoryThatUpAndDownWalk() {
        var editor = LineEditor()
        type("first", into: &editor)
        #expect(editor.handle(.enter) == .entered("first"))
        type("second", into: &editor)
        #expect(editor.handle(.enter) == .entered("second"))
        type("draft", into: &editor)
        _ = editor.handle(.up)
        #expect(editor.line == "second")
        _ = editor.handle(.up)
        _ = editor.handle(.up)
        #expect(editor.line == "first")
        _ = editor.handle(.down)
        _ = editor.handle(.down)
        #expect(editor.line == "draft" && editor.cursor == 5)
    }

    @Test func controlAndFormatCharactersAreNotTypedAndTheLineIsBounded() {
        var editor = LineEditor()
        #expect(editor.handle(.character("\u{202E}")) == .ignored)
        #expect(editor.handle(.character("\u{9B}")) == .ignored)
        type(String(repeating: "a", count: LineEditor.maximumLength + 10), into: &editor)
        #expect(editor.text.count == LineEditor.maximumLength)
    }
}
