extension JSONValue {
    /// Compact JSON text: no spaces, no newlines, so one value is one line.
    public var serialized: String {
        var out = ""
        write(to: &out)
        return out
    }

    private func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let n): out += Self.format(n)
        case .string(let s): Self.writeString(s, to: &out)
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                item.write(to: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (i, member) in members.enumerated() {
                if i > 0 { out += "," }
                Self.writeString(member.key, to: &out)
                out += ":"
                member.value.write(to: &out)
            }
            out += "}"
        }
    }

    /// Integral values within ±2^53 print without a fraction; non-finite numbers (not JSON) print as null.
    private static func format(_ n: Double) -> String {
        guard n.isFinite else { return "null" }
        if n == n.rounded(), abs(n) <= 9_007_199_254_740_992 { return String(Int64(n)) }
        return String(n)
    }

    /// Copies runs of characters that need no escape whole, reading the string's UTF-8 (a
    /// scalar is decoded only where a byte is not ASCII): appending, or even iterating, scalar by
    /// scalar was most of the rendezvous's time under a burst of relays.
    private static func writeString(_ s: String, to out: inout String) {
        out += "\""
        let written: Void? = s.utf8.withContiguousStorageIfAvailable { bytes in
            var run = 0, i = 0
            while i < bytes.count {
                let (scalar, length) = scalarAt(i, in: bytes)
                if !isPlain(scalar) {
                    appendUTF8(of: s, run..<i, to: &out)
                    writeEscaped(scalar, to: &out)
                    run = i + length
                }
                i += length
            }
            appendUTF8(of: s, run..<bytes.count, to: &out)
        }
        if written == nil {  // not contiguous (never for a native string): scalar by scalar
            for scalar in s.unicodeScalars {
                if isPlain(scalar) { out.unicodeScalars.append(scalar) } else { writeEscaped(scalar, to: &out) }
            }
        }
        out += "\""
    }

    /// The scalar whose UTF-8 starts at `i`, and its length (a String's UTF-8 is valid).
    private static func scalarAt(_ i: Int, in bytes: UnsafeBufferPointer<UInt8>) -> (Unicode.Scalar, Int) {
        let lead = UInt32(bytes[i])
        let length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
        guard length > 1, i + length <= bytes.count else { return (Unicode.Scalar(UInt8(lead)), 1) }
        var value = lead & (0x7F >> UInt32(length))
        for k in 1..<length { value = value << 6 | UInt32(bytes[i + k] & 0x3F) }
        return (Unicode.Scalar(value) ?? "\u{FFFD}", length)
    }

    /// Appends bytes `offsets` of `s`'s UTF-8 (cut at scalar boundaries).
    private static func appendUTF8(of s: String, _ offsets: Range<Int>, to out: inout String) {
        guard !offsets.isEmpty else { return }
        let start = s.utf8.index(s.utf8.startIndex, offsetBy: offsets.lowerBound)
        out += Substring(s.utf8[start..<s.utf8.index(start, offsetBy: offsets.count)])
    }

    /// Written as it is: printable ASCII but the quote and the backslash, and what a terminal shows as text.
    private static func isPlain(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x80 ? scalar.value >= 0x20 && scalar.value != 0x7F && scalar != "\"" && scalar != "\\" : !TerminalEscape.needsEscape(scalar)
    }

    private static func writeEscaped(_ scalar: Unicode.Scalar, to out: inout String) {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        // Every character a terminal could act on is escaped too (the text stays exact): JSON
        // lines printed to a terminal cannot move its cursor or reorder what it shows.
        default:
            if scalar.value > 0xFFFF {
                let offset = scalar.value - 0x10000
                out += hexEscape(0xD800 + (offset >> 10)) + hexEscape(0xDC00 + (offset & 0x3FF))
            } else {
                out += hexEscape(scalar.value)
            }
        }
    }

    private static func hexEscape(_ unit: UInt32) -> String {
        let hex = String(unit, radix: 16)
        return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
    }
}
