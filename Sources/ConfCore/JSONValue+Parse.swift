/// Why a text is not acceptable JSON, with the byte offset where parsing stopped.
public struct JSONParseError: Error, Equatable, Sendable, CustomStringConvertible {
    public var offset: Int
    public var reason: String
    public var description: String { "invalid JSON at byte \(offset): \(reason)" }
}

extension JSONValue {
    /// Parses one JSON value (RFC 8259) from UTF-8 text. Built for input from the network: nesting
    /// deeper than `maxDepth` and duplicate object keys are refused, and nothing recurses without bound.
    public static func parse(_ text: String, maxDepth: Int = 32) throws(JSONParseError) -> JSONValue {
        var copy = text
        let result: Result<JSONValue, JSONParseError> = copy.withUTF8 { bytes in
            var parser = JSONParser(bytes: bytes, maxDepth: maxDepth)
            do throws(JSONParseError) { return .success(try parser.parseDocument()) } catch { return .failure(error) }
        }
        return try result.get()
    }

    public static func parse(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int = 32) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(bytes: bytes, maxDepth: maxDepth)
        return try parser.parseDocument()
    }
}

private struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    var index = 0
    var depth = 0

    init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else { throw fail("unexpected text after the value") }
        return value
    }

    func fail(_ reason: String) -> JSONParseError { JSONParseError(offset: index, reason: reason) }

    var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func skipWhitespace() {
        while let c = current, c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { index += 1 }
    }

    mutating func expect(_ literal: StaticString, _ value: JSONValue) throws(JSONParseError) -> JSONValue {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - index >= count else { throw fail("unexpected end of text") }
        for i in 0..<count where bytes[index + i] != literal.utf8Start[i] {
            throw fail("unexpected character")
        }
        index += count
        return value
    }

    mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard let c = current else { throw fail("unexpected end of text") }
        switch c {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try expect("true", .bool(true))
        case UInt8(ascii: "f"): return try expect("false", .bool(false))
        case UInt8(ascii: "n"): return try expect("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw fail("unexpected character")
        }
    }

    mutating func enter() throws(JSONParseError) {
        depth += 1
        if depth > maxDepth { throw fail("nested deeper than \(maxDepth) levels") }
    }

    mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try enter()
        index += 1
        var members: [JSONValue.Member] = []
        var keys = Set<String>()
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw fail("expected a member name in quotes") }
            let key = try parseString()
            guard keys.insert(key).inserted else { throw fail("duplicate member \"\(key)\"") }
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw fail("expected ':' after a member name") }
            index += 1
            skipWhitespace()
            members.append(.init(key, try parseValue()))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                depth -= 1
                return .object(members)
            default: throw fail("expected ',' or '}' in an object")
            }
        }
    }

    mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enter()
        index += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(items)
        }
        while true {
            skipWhitespace()
            items.append(try parseValue())
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                depth -= 1
                return .array(items)
            default: throw fail("expected ',' or ']' in an array")
            }
        }
    }

    mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = index
        func digits(_ p: inout JSONParser) -> Int {
            let s = p.index
            while let c = p.current, c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9") { p.index += 1 }
            return p.index - s
        }
        if current == UInt8(ascii: "-") { index += 1 }
        if current == UInt8(ascii: "0") {
            index += 1
        } else if digits(&self) == 0 {
            throw fail("expected a digit")
        }
        if current == UInt8(ascii: ".") {
            index += 1
            guard digits(&self) > 0 else { throw fail("expected a digit after '.'") }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard digits(&self) > 0 else { throw fail("expected a digit in the exponent") }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw JSONParseError(offset: start, reason: "number out of range") }
        return .number(value)
    }

    mutating func parseString() throws(JSONParseError) -> String {
        index += 1  // opening quote
        // Runs between escapes are validated and appended whole; a string without escapes (most)
        // is its one run's String, not copied again.
        var text = ""
        var runStart = index
        func flushRun(_ p: JSONParser, _ text: inout String) throws(JSONParseError) {
            guard runStart < p.index else { return }
            let run = UnsafeBufferPointer(rebasing: p.bytes[runStart..<p.index])
            guard let part = String(validUTF8: run) else { throw p.fail("invalid UTF-8 in a string") }
            if text.isEmpty { text = part } else { text += part }
        }
        while true {
            guard let c = current else { throw fail("unterminated string") }
            switch c {
            case UInt8(ascii: "\""):
                try flushRun(self, &text)
                index += 1
                return text
            case UInt8(ascii: "\\"):
                try flushRun(self, &text)
                index += 1
                text.unicodeScalars.append(try parseEscape())
                runStart = index
            case 0..<0x20:
                throw fail("control character in a string")
            default:
                index += 1
            }
        }
    }

    mutating func parseEscape() throws(JSONParseError) -> Unicode.Scalar {
        guard let c = current else { throw fail("unterminated escape") }
        index += 1
        switch c {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let high = try parseHex4()
            if (0xD800...0xDBFF).contains(high) {
                guard current == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
                    throw fail("unpaired surrogate")
                }
                index += 2
                let low = try parseHex4()
                guard (0xDC00...0xDFFF).contains(low) else { throw fail("unpaired surrogate") }
                return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))!
            }
            guard let scalar = Unicode.Scalar(high) else { throw fail("unpaired surrogate") }
            return scalar
        default:
            throw fail("unknown escape")
        }
    }

    mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard bytes.count - index >= 4 else { throw fail("truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[index]
            let digit: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(c - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(c - UInt8(ascii: "A") + 10)
            default: throw fail("bad hex digit in \\u escape")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }
}
