import ConfCore

/// The input line: text with a cursor, the editing keys of a shell (readline's defaults for the
/// common ones) and a history of what was entered. Pure.
public struct LineEditor: Equatable, Sendable {
    public private(set) var text: [Character] = []
    /// Where the next character goes, 0...text.count.
    public private(set) var cursor = 0
    private var history: [String] = []
    /// The entry of `history` shown (Up and Down), nil while editing a new line.
    private var browsing: Int?
    /// The new line being written when Up was first pressed, given back by Down.
    private var draft: [Character] = []

    /// A chat message is at most 16 KiB; a line is at most this many characters.
    public static let maximumLength = 4_096
    public static let historyLength = 100

    public init() {}

    public var line: String { String(text) }

    public enum Outcome: Equatable, Sendable {
        /// Enter: the line, now kept in the history; the editor is empty again.
        case entered(String)
        case edited
        /// A key that means nothing here.
        case ignored
    }

    public mutating func handle(_ key: Key) -> Outcome {
        switch key {
        case .character(let character):
            // What the terminal would act on is not typed into the line (it would not show as typed).
            guard text.count < Self.maximumLength, !character.unicodeScalars.contains(where: TerminalEscape.needsEscape) else { return .ignored }
            text.insert(character, at: cursor)
            cursor += 1
        case .paste(let pasted):
            // Line breaks become spaces; what the terminal would act on is left out, as when typed.
            let characters = pasted.map { $0.isNewline || $0 == "\t" ? " " : $0 }
                .filter { !$0.unicodeScalars.contains(where: TerminalEscape.needsEscape) }
            let fitting = characters.prefix(max(0, Self.maximumLength - text.count))
            guard !fitting.isEmpty else { return .ignored }
            text.insert(contentsOf: fitting, at: cursor)
            cursor += fitting.count
        case .enter:
            let line = self.line
            if !line.allSatisfy(\.isWhitespace), history.last != line {
                history.append(line)
                if history.count > Self.historyLength { history.removeFirst() }
            }
            clear()
            return .entered(line)
        case .backspace, .control("h"):
            guard cursor > 0 else { return .ignored }
            cursor -= 1
            text.remove(at: cursor)
        case .delete, .control("d"):
            guard cursor < text.count else { return .ignored }
            text.remove(at: cursor)
        case .left, .control("b"): cursor = max(0, cursor - 1)
        case .right, .control("f"): cursor = min(text.count, cursor + 1)
        case .home, .control("a"): cursor = 0
        case .end, .control("e"): cursor = text.count
        case .control("u"):
            text.removeFirst(cursor)
            cursor = 0
        case .control("k"): text.removeLast(text.count - cursor)
        case .control("w"): deleteWordBeforeCursor()
        case .up: return recall(older: true)
        case .down: return recall(older: false)
        default: return .ignored
        }
        return .edited
    }

    /// Empties the line (Escape, or after Enter) and stops browsing the history.
    public mutating func clear() {
        text = []
        cursor = 0
        browsing = nil
        draft = []
    }

    /// Starts the line with `prefix` (the `/` that opened it), the cursor after it.
    public mutating func start(with prefix: String) {
        clear()
        text = Array(prefix)
        cursor = text.count
    }

    private mutating func deleteWordBeforeCursor() {
        var start = cursor
        while start > 0, text[start - 1] == " " { start -= 1 }
        while start > 0, text[start - 1] != " " { start -= 1 }
        text.removeSubrange(start..<cursor)
        cursor = start
    }

    private mutating func recall(older: Bool) -> Outcome {
        guard !history.isEmpty else { return .ignored }
        let next: Int?
        switch (browsing, older) {
        case (nil, true): next = history.count - 1
        case (nil, false): return .ignored
        case (let index?, true): next = max(0, index - 1)
        case (let index?, false): next = index + 1 < history.count ? index + 1 : nil
        }
        if browsing == nil { draft = text }
        browsing = next
        text = next.map { Array(history[$0]) } ?? draft
        cursor = text.count
        return .edited
    }
}
