import ConfCore
import Testing

@Suite struct JSONValueTests {
    @Test func parsesEveryKindOfValue() throws {
        let value = try JSONValue.parse(#" {"a": [1, -2.5e3, true, false, null], "b": "x\"\\\/\n\u00e9\ud83d\ude00", "c": {}} "#)
        #expect(value["a"] == .array([1, .number(-2500), true, false, .null]))
        #expect(value["b"] == .string("x\"\\/\n\u{e9}\u{1F600}"))
        #expect(value["c"] == .object([JSONValue.Member]()))
    }

    @Test func serializesOnOneLineAndRoundTrips() throws {
        let value: JSONValue = .object(["type": "x", "text": "tab\there\nline \u{2028} \u{1}", "n": 3, "f": .number(0.5), "list": [nil, true]])
        let text = value.serialized
        #expect(!text.contains("\n"))
        #expect(text.hasPrefix(#"{"type":"x","text":"tab\there\nline \u2028 \u0001""#))
        #expect(try JSONValue.parse(text) == value)
    }

    /// Escapes between plain runs, at a string's ends, and next to scalars that join a Character
    /// with their neighbours (a prepended format character, a combining mark): nothing lost or doubled.
    @Test(arguments: [
        ("", #""""#),
        ("\"", #""\"""#),
        ("a\\b\"", #""a\\b\"""#),
        ("\u{600}1é\u{7F}", #""\u06001é\u007f""#),
        ("e\u{301}\u{200E}x\u{1}", "\"e\u{301}\\u200ex\\u0001\""),
        ("日本\u{9B}語🙂\u{E0041}", #""日本\u009b語🙂\udb40\udc41""#),
    ])
    func stringsAreEscapedExactly(_ text: String, _ json: String) throws {
        #expect(JSONValue.string(text).serialized == json)
        #expect(try JSONValue.parse(json) == .string(text))
    }

    @Test func keepsMemberOrder() throws {
        let text = #"{"z":1,"a":2,"m":3}"#
        #expect(try JSONValue.parse(text).serialized == text)
    }

    @Test(arguments: [
        "", " ", "{", "}", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{a:1}", "[1 2]", "01", "1.", ".5", "-", "1e", "+1",
        "\"unterminated", "\"bad \\x escape\"", "\"\\u12\"", "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\"",
        "\"raw \u{1} control\"", "tru", "nul", "[1] x", "{\"a\":1,\"a\":2}", "1e400", "[\"a\"", "{\"a\":",
    ])
    func refusesMalformedText(_ text: String) {
        #expect(throws: JSONParseError.self) { try JSONValue.parse(text) }
    }

    @Test func refusesDeepNestingWithoutRecursingForever() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONParseError.self) { try JSONValue.parse(deep, maxDepth: 32) }
        let ok = String(repeating: "[", count: 32) + String(repeating: "]", count: 32)
        #expect(throws: Never.self) { try JSONValue.parse(ok, maxDepth: 32) }
    }

    @Test func refusesInvalidUTF8() {
        let bytes: [UInt8] = [0x22, 0xC3, 0x28, 0x22]
        #expect(throws: JSONParseError.self) {
            try bytes.withUnsafeBufferPointer { try JSONValue.parse(bytes: $0) }
        }
    }

    @Test func errorsSayWhere() {
        do {
            _ = try JSONValue.parse("[1, 2, x]")
            Issue.record("expected an error")
        } catch {
            #expect(error.offset == 7)
            #expect(error.description.contains("byte 7"))
        }
    }

    /// A cheap fuzz pass: random mutations of valid documents never crash the parser, and whatever
    /// parses re-serializes to something that parses to the same value.
    @Test func survivesRandomMutations() {
        var random = SeededRandom(seed: 7)
        let seeds = [#"{"type":"join","room":"1234-5678","pin":"123456","name":"ann"}"#, #"[1,{"a":"\u00e9"},null,true,-0.5e-3]"#]
        let alphabet = Array(#"{}[]",:\u0123456789eE+-.truefalsn "#.utf8)
        for _ in 0..<20_000 {
            var bytes = Array(seeds[Int(random.next() % 2)].utf8)
            for _ in 0..<(1 + random.next() % 4) {
                let at = Int(random.next() % UInt64(bytes.count))
                switch random.next() % 3 {
                case 0: bytes[at] = alphabet[Int(random.next() % UInt64(alphabet.count))]
                case 1: bytes.remove(at: at)
                default: bytes.insert(UInt8(truncatingIfNeeded: random.next()), at: at)
                }
                if bytes.isEmpty { break }
            }
            let parsed = bytes.withUnsafeBufferPointer { try? JSONValue.parse(bytes: $0) }
            if let parsed { #expect((try? JSONValue.parse(parsed.serialized)) == parsed) }
        }
    }

    /// Random strings of scalars from every class the writer tells apart (plain ASCII, the two
    /// escaped ASCII characters, controls, DEL, C1, multi-byte text, format characters, scalars
    /// past the BMP) come back exactly, and nothing a terminal acts on is written raw.
    @Test func randomStringsRoundTripAndNoTerminalControlIsWrittenRaw() throws {
        var random = SeededRandom(seed: 11)
        let pool: [Unicode.Scalar] = ["a", "Z", " ", "~", "\"", "\\", "\n", "\u{0}", "\u{1B}", "\u{7F}", "\u{85}", "\u{9B}", "é",
                                      "\u{301}", "\u{600}", "\u{200D}", "\u{200E}", "\u{2028}", "日", "\u{FEFF}", "🙂", "\u{E0041}"]
        for _ in 0..<2_000 {
            var text = String.UnicodeScalarView()
            for _ in 0..<(random.next() % 24) { text.append(pool[Int(random.next() % UInt64(pool.count))]) }
            let string = String(text)
            let json = JSONValue.string(string).serialized
            #expect(!json.unicodeScalars.contains(where: TerminalEscape.needsEscape), "\(json)")
            #expect(try JSONValue.parse(json) == .string(string))
        }
    }
}
