/// The ERROR-CODE attribute of an error response (RFC 8489 section 14.8):
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     |           Reserved, should be 0         |Class|     Number    |
///     |      Reason Phrase (variable)                                ..
///
/// The code is class * 100 + number, from 300 to 699.
public struct STUNErrorCode: Equatable, Sendable {
    public var code: Int
    public var reason: String

    public init(code: Int, reason: String) {
        self.code = code
        self.reason = reason
    }

    /// 420: the request carried comprehension-required attributes the server does not know; they
    /// are listed in UNKNOWN-ATTRIBUTES (section 14.9).
    public static let unknownAttribute = STUNErrorCode(code: 420, reason: "Unknown Attribute")

    /// Nil when the value is shorter than 4 bytes or the class or number is out of range.
    public init?(attributeValue value: [UInt8]) {
        guard value.count >= 4, (3...6).contains(value[2] & 0x07), value[3] < 100 else { return nil }
        self.init(code: Int(value[2] & 0x07) * 100 + Int(value[3]), reason: String(decoding: value[4...], as: UTF8.self))
    }

    /// The value; a code outside 300...699 is clamped into it, and the reason is cut to the 127
    /// characters section 14.8 allows.
    public var attributeValue: [UInt8] {
        let code = min(max(code, 300), 699)
        return [0, 0, UInt8(code / 100), UInt8(code % 100)] + Array(String(reason.prefix(127)).utf8)
    }
}
