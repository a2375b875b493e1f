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

    private static func writeString(_ s: String, to out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            // Every character a terminal could act on is escaped too (the text stays exact): JSON
            // lines printed to a terminal cannot move its cursor or reorder what it shows.
            case _ where TerminalEscape.needsEscape(scalar):
                if scalar.value > 0xFFFF {
                    let offset = scalar.value - 0x10000
                    out += hexEscape(0xD800 + (offset >> 10)) + hexEscape(0xDC00 + (offset & 0x3FF))
                } else {
                    out += hexEscape(scalar.value)
                }
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }

    private static func hexEscape(_ unit: UInt32) -> String {
        let hex = String(unit, radix: 16)
        return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
    }
}
