/// Turns the bytes read from a terminal in raw mode into keys. Pure; keeps what a read split (half
/// an escape sequence, half a UTF-8 character) for the next call.
///
/// Understood: printable UTF-8, C0 controls, and the CSI and SS3 sequences xterm, VTE, the Linux
/// console, tmux and screen send for arrows, Home/End, Page Up/Down, Delete and Shift-Tab
/// (`ESC [ A`, `ESC O A`, `ESC [ 1 ~`, `ESC [ 3 ~`, `ESC [ Z`...). A sequence it does not know is
/// dropped whole, never shown as text; modifiers on arrows (`ESC [ 1 ; 5 A`) are ignored.
public struct KeyDecoder: Sendable {
    private var pending: [UInt8] = []
    /// Longer than this and a "sequence" is garbage: dropped so it cannot grow without bound.
    static let longestSequence = 16

    public init() {}

    /// The keys in `bytes` (and what earlier calls left pending). A lone ESC at the end of a read is
    /// the Escape key: terminals send a sequence in one write, so a read does not split it in practice.
    public mutating func keys(_ bytes: some Collection<UInt8>) -> [Key] {
        pending += bytes
        var keys: [Key] = []
        var index = 0
        while index < pending.count {
            guard let (key, length) = decode(at: index) else { break }  // incomplete: wait for more
            if let key { keys.append(key) }
            index += length
        }
        pending.removeFirst(index)
        if pending.count > Self.longestSequence { pending.removeAll() }
        return keys
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
            default: return (nil, length)
            }
        default: return (nil, length)
        }
    }
}
