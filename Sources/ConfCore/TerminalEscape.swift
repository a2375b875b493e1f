/// Makes text that came from the network safe to print on a terminal: every character a terminal
/// could act on instead of showing is written as a visible escape.
///
/// - C0 and C1 controls (Unicode Cc: ESC, BEL, CR, BS, DEL, CSI U+009B...) would move the cursor,
///   clear the screen, set the window title (OSC), ring the bell or overwrite what was printed.
/// - Format characters (Cf: the bidi overrides and isolates U+202A-U+202E, U+2066-U+2069, marks,
///   invisible tags) and the line and paragraph separators U+2028/U+2029 reorder or hide text, so a
///   line could show something other than what it holds.
///
/// Named escapes for the common controls (`\e \a \b \t \n \v \f \r`), `\uXXXX` for the rest of the
/// Basic Multilingual Plane (`\u202e`), `\u{XXXXX}` above it. The zero-width joiner and non-joiner
/// (U+200C, U+200D) stay: emoji sequences and several scripts need them, and they move nothing.
/// Invalid UTF-8 (and so any lone surrogate) is shown as U+FFFD. A backslash is left as it is: the
/// escapes are for the reader, not a reversible encoding (JSON output carries the exact text).
public enum TerminalEscape {
    public static func escape(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            if needsEscape(scalar) { out += visible(scalar) } else { out.unicodeScalars.append(scalar) }
        }
        return out
    }

    /// Bytes that should be UTF-8 but may be anything: invalid sequences become U+FFFD first.
    public static func escape<Bytes: Collection>(utf8 bytes: Bytes) -> String where Bytes.Element == UInt8 {
        escape(String(decoding: bytes, as: UTF8.self))
    }

    /// Whether a terminal could act on `scalar` rather than show it.
    public static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: return true  // fast path for the controls
        case 0x20...0x7E: return false
        case 0x200C, 0x200D: return false
        default:
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator: return true
            default: return false
            }
        }
    }

    private static func visible(_ scalar: Unicode.Scalar) -> String {
        switch scalar.value {
        case 0x1B: return "\\e"
        case 0x07: return "\\a"
        case 0x08: return "\\b"
        case 0x09: return "\\t"
        case 0x0A: return "\\n"
        case 0x0B: return "\\v"
        case 0x0C: return "\\f"
        case 0x0D: return "\\r"
        case let value where value <= 0xFFFF:
            let hex = String(value, radix: 16)
            return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        case let value:
            return "\\u{" + String(value, radix: 16) + "}"
        }
    }
}
