/// Turns the bytes read from a terminal in raw mode into keys. Pure; keeps what a read split (half
/// an escape sequence, half a UTF-8 character) for the next call.
///
/// Understood: printable UTF-8, C0 controls, and the CSI and SS3 sequences xterm, VTE, the Linux
/// console, tmux and screen send for arrows, Home/End, Page Up/Down, Delete and Shift-Tab
/// (`ESC [ A`, `ESC O A`, `ESC [ 1 ~`, `ESC [ 3 ~`, `ESC [ Z`...). A sequence it does not know is
/// dropped whole, never shown as text; modifiers on arrows (`ESC [ 1 ; 5 A`) are ignored.
/// Bracketed paste (`ESC [ 200 ~` text `ESC [ 201 ~`, which the screen asks the terminal for)
/// comes out as one `.paste`, however many reads it took; past `longestPaste` bytes the rest of
/// it is dropped.
public struct KeyDecoder: Sendable {
    private var pending: [UInt8] = []
    /// Longer than this and a "sequence" is garbage: dropped so it cannot grow without bound.
    static let longestSequence = 16
    /// A paste's bytes so far, while one is open.
    private var pasted: [UInt8]?
    static let longestPaste = 16_384
    private static let pasteEnd: [UInt8] = Array("\u{1B}[201~".utf8)

    public init() {}

    /// The keys in `bytes` (and what earlier calls left pending). A lone ESC at the end of a read is
    /// the Escape key: terminals send a sequence in one write, so a read does not split it in practice.
    public mutating func keys(_ bytes: some Collection<UInt8>) -> [Key] {
        pending += bytes
        var keys: [Key] = []
        var index = 0
        while index < pending.count {
            if pasted != nil {
                guard let key = takePaste(from: &index) else { break }
                keys.append(key)
                continue
            }
            guard let (key, length) = decode(at: index) else { break }  // incomplete: wait for more
            if key == .paste("") {
                pasted = []
            } else if let key {
                keys.append(key)
            }
            index += length
        }
        pending.removeFirst(index)
        if pasted == nil, pending.count > Self.longestSequence { pending.removeAll() }
        return keys
    }

    /// Ends a paste whose end marker never came (a terminal or multiplexer that lost it): what
    /// arrived of it is the paste. Nil when no paste is open.
    public mutating func endUnfinishedPaste() -> Key? {
        guard let bytes = pasted else { return nil }
        pasted = nil
        let text = String(decoding: bytes + pending.prefix(max(0, Self.longestPaste - bytes.count)), as: UTF8.self)
        pending = []
        return .paste(text)
    }

    /// The paste, once its end is in `pending`; until then its bytes move to `pasted` (all but a
    /// tail that may be the start of the end marker).
    private mutating func takePaste(from index: inout Int) -> Key? {
        let rest = pending[index...]
        if let end = rest.firstRange(of: Self.pasteEnd) {
            keep(rest[..<end.lowerBound])
            index = end.upperBound
            let text = String(decoding: pasted ?? [], as: UTF8.self)
            pasted = nil
            return .paste(text)
        }
        let safe = max(rest.startIndex, rest.endIndex - (Self.pasteEnd.count - 1))
        keep(rest[..<safe])
        index = safe
        return nil
    }

    private mutating func keep(_ bytes: ArraySlice<UInt8>) {
        let room = Self.longestPaste - (pasted?.count ?? 0)
        pasted? += bytes.prefix(max(0, room))
    }

    /// The key at `index` and the bytes it took (a nil key for a sequence that means nothing to
    /// us); nil when the bytes end in the middle of it.
    private func decode(at index: Int) -> (Key?, Int)? {
        let byte = pending[index]
        switch byte {
        case 0x1B: return escapeSequence(at: index)
        case 0x0D, 0x0A: return (.enter, 1)
        case 0x09: return (.tab, 1)
        case 0x7F, 0x08: return (.backspace, 1)
        case 0x00...0x1F: return (.control(Character(Unicode.Scalar(byte + 0x60))), 1)
        case 0x20...0x7E: return (.character(Character(Unicode.Scalar(byte))), 1)
        default: return utf8Character(at: index)
        }
    }

    private func utf8Character(at index: Int) -> (Key?, Int)? {
        let byte = pending[index]
        let length = byte >= 0xF8 ? 1 : byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
        guard length > 1 else { return (nil, 1) }  // a stray continuation byte, or no UTF-8 at all
        let available = pending[index..<min(pending.count, index + length)]
        guard available.dropFirst().allSatisfy({ $0 & 0xC0 == 0x80 }) else { return (nil, 1) }
        guard available.count == length else { return nil }  // the rest comes with the next read
        guard let text = String(validating: available, as: UTF8.self), let character = text.first else { return (nil, 1) }
        return (.character(character), length)
    }

    private func escapeSequence(at index: Int) -> (Key?, Int)? {
        guard index + 1 < pending.count else { return (.escape, 1) }
        let introducer = pending[index + 1]
        guard introducer == UInt8(ascii: "[") || introducer == UInt8(ascii: "O") else {
            return (.escape, 1)  // Escape, then whatever was typed next (Alt-x arrives so)
        }
        // Parameters and intermediates (0x20-0x3F), then one final byte (0x40-0x7E).
        var end = index + 2
        while end < pending.count, (0x20...0x3F).contains(pending[end]) { end += 1 }
        guard end < pending.count else { return nil }
        let final = pending[end]
        let length = end - index + 1
        guard (0x40...0x7E).contains(final) else { return (nil, length - 1) }
        let parameters = String(decoding: pending[(index + 2)..<end], as: UTF8.self)
        let first = parameters.split(separator: ";").first.map(String.init) ?? ""
        switch Character(Unicode.Scalar(final)) {
        case "A": return (.up, length)
        case "B": return (.down, length)
        case "C": return (.right, length)
        case "D": return (.left, length)
        case "H": return (.home, length)
        case "F": return (.end, length)
        case "Z": return (.backTab, length)
        case "~":
            switch first {
            case "1", "7": return (.home, length)
            case "4", "8": return (.end, length)
            case "3": return (.delete, length)
            case "5": return (.pageUp, length)
            case "6": return (.pageDown, length)
            case "200": return (.paste(""), length)  // a paste starts: the caller collects it
            default: return (nil, length)
            }
        default: return (nil, length)
        }
    }
}
