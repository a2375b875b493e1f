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

    /// Copies runs of characters that need no escape whole (most strings are one run): appending
    /// scalar by scalar was most of the rendezvous's JSON time.
    private static func writeString(_ s: String, to out: inout String) {
        out += "\""
        let scalars = s.unicodeScalars
        var run = scalars.startIndex
        var i = run
        while i != scalars.endIndex {
            let scalar = scalars[i]
            let plain = scalar.value < 0x80 ? scalar.value >= 0x20 && scalar.value != 0x7F && scalar != "\"" && scalar != "\\"
                                            : !TerminalEscape.needsEscape(scalar)
            if plain {
                i = scalars.index(after: i)
                continue
            }
            // Sliced as scalars (String's own subscript would round to a Character boundary).
            out += Substring(scalars[run..<i])
            writeEscaped(scalar, to: &out)
            i = scalars.index(after: i)
            run = i
        }
        out += Substring(scalars[run..<i])
        out += "\""
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
