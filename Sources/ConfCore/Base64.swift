/// Base64 (RFC 4648): section 4's alphabet with padding, or section 5's URL-safe one without.
public enum Base64 {
    private static let standard = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let urlSafe = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    public static func encode(_ bytes: [UInt8], urlSafe: Bool = false) -> String {
        let alphabet = urlSafe ? Self.urlSafe : standard
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            let value = chunk.enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (16 - 8 * $1.offset) }
            for position in 0...chunk.count { out.append(alphabet[Int(value >> (18 - 6 * position) & 0x3f)]) }
            if !urlSafe { out += Array(repeating: UInt8(ascii: "="), count: 3 - chunk.count) }
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Whether `byte` is a character of the URL-safe alphabet.
    public static func isURLSafeCharacter(_ byte: UInt8) -> Bool { urlSafe.contains(byte) }

    /// The URL-safe alphabet without padding; nil for any character outside it or an impossible length.
    public static func decodeURLSafe(_ text: String) -> [UInt8]? {
        var values: [UInt32] = []
        for byte in text.utf8 {
            guard let value = urlSafe.firstIndex(of: byte) else { return nil }
            values.append(UInt32(value))
        }
        guard values.count % 4 != 1 else { return nil }
        var out: [UInt8] = []
        var index = 0
        while index < values.count {
            let chunk = values[index..<min(index + 4, values.count)]
            let value = chunk.enumerated().reduce(UInt32(0)) { $0 | $1.element << (18 - 6 * $1.offset) }
            for position in 0..<(chunk.count - 1) { out.append(UInt8(value >> (16 - 8 * position) & 0xff)) }
            index += 4
        }
        return out
    }
}
