import ConfCore
import Testing

@Suite struct TerminalEscapeTests {
    @Test func plainTextAndOrdinaryUnicodeAreKept() {
        for text in ["", "hello, world", "Zoë 東京 🙂", "👨‍👩‍👧 family (joined with U+200D)", "path\\to\\file", "مرحبا"] {
            #expect(TerminalEscape.escape(text) == text)
        }
    }

    @Test func controlsAreShownByName() {
        #expect(TerminalEscape.escape("\u{1B}[2Jcleared") == "\\e[2Jcleared")
        #expect(TerminalEscape.escape("\u{1B}]0;pwned\u{07}") == "\\e]0;pwned\\a")
        #expect(TerminalEscape.escape("a\rb\u{08}c\td\ne\u{0B}f\u{0C}") == "a\\rb\\bc\\td\\ne\\vf\\f")
    }

    @Test func otherControlsFormatCharactersAndSeparatorsAreShownAsCodePoints() {
        #expect(TerminalEscape.escape("\u{0}\u{7F}") == "\\u0000\\u007f")
        #expect(TerminalEscape.escape("\u{9B}31m") == "\\u009b31m")  // C1 CSI
        #expect(TerminalEscape.escape("abc\u{202E}fed") == "abc\\u202efed")
        #expect(TerminalEscape.escape("\u{2066}x\u{2069}\u{200E}\u{FEFF}\u{AD}") == "\\u2066x\\u2069\\u200e\\ufeff\\u00ad")
        #expect(TerminalEscape.escape("line\u{2028}para\u{2029}") == "line\\u2028para\\u2029")
        #expect(TerminalEscape.escape("tag\u{E0041}") == "tag\\u{e0041}")
    }

    @Test func invalidUTF8BecomesTheReplacementCharacter() {
        #expect(TerminalEscape.escape(utf8: [0x61, 0xFF, 0x62]) == "a\u{FFFD}b")
        // A UTF-8-encoded lone surrogate (CESU style) and a truncated sequence.
        #expect(TerminalEscape.escape(utf8: [0xED, 0xA0, 0x80]).allSatisfy { $0 == "\u{FFFD}" })
        #expect(TerminalEscape.escape(utf8: [0x1B, 0xE2, 0x82]) == "\\e\u{FFFD}")
    }

    @Test func noEscapedTextContainsAnythingATerminalActsOn() {
        var random = SeededRandom(seed: 7)
        for _ in 0..<500 {
            let bytes = (0..<Int(random.next() % 40)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            let shown = TerminalEscape.escape(utf8: bytes)
            #expect(!shown.unicodeScalars.contains(where: TerminalEscape.needsEscape))
        }
    }

    @Test func terminalTextEscapesInterpolatedValuesAndKeepsItsOwn() {
        let name = "eve\u{1B}[2J", reason = "gone\u{07}"
        let bold = TerminalText(trusted: "\u{1B}[1m") + TerminalText(escaping: name) + TerminalText(trusted: "\u{1B}[0m")
        let line: TerminalText = "\(bold) left: \(reason) (\(42))"
        #expect(line.rendered == "\u{1B}[1meve\\e[2J\u{1B}[0m left: gone\\a (42)")
        #expect(TerminalText(stringLiteral: "literal \u{1B}ok").rendered == "literal \u{1B}ok")
    }

    @Test func jsonStaysExactButPrintsNothingATerminalActsOn() throws {
        let text = "\u{1B}]0;title\u{07}\u{9B}\u{202E}\u{E0041}é"
        let serialized = JSONValue.object(["text": .string(text)]).serialized
        #expect(!serialized.unicodeScalars.contains(where: TerminalEscape.needsEscape))
        #expect(serialized.contains("\\u202e") && serialized.contains("\\udb40\\udc41"))
        #expect(try JSONValue.parse(serialized)["text"] == .string(text))
    }
}
