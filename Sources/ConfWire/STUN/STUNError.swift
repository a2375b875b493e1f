/// Why bytes were not read as a STUN message (RFC 8489 sections 5, 14 and 14.7). A server drops
/// such a datagram without an answer; the case says what was wrong, for a log or a test.
public enum STUNError: Error, Equatable, Sendable, CustomStringConvertible {
    case tooLarge(size: Int)
    case truncatedHeader(size: Int)
    /// The two leading bits are not zero: RTP, DTLS or something else, not STUN.
    case leadingBitsSet
    /// An RFC 3489 message (which has no cookie), or not STUN.
    case wrongMagicCookie(UInt32)
    case lengthNotMultipleOfFour(Int)
    /// The header's message length and the bytes after the header differ.
    case lengthMismatch(declared: Int, actual: Int)
    /// An attribute's header or padded value runs past the end of the message.
    case attributeOverrun(type: STUNAttributeType, offset: Int)
    case tooManyAttributes(limit: Int)
    case attributeAfterFingerprint(STUNAttributeType)
    case fingerprintLength(Int)
    case fingerprintMismatch(expected: UInt32, found: UInt32)

    public var description: String {
        switch self {
        case .tooLarge(let size): "a \(size)-byte datagram is larger than a STUN message conf reads (\(STUNMessage.maximumSize))"
        case .truncatedHeader(let size): "\(size) bytes are shorter than a STUN header (20)"
        case .leadingBitsSet: "the first two bits of a STUN message are zero"
        case .wrongMagicCookie(let cookie): "the magic cookie is 0x\(String(cookie, radix: 16)), not 0x2112a442"
        case .lengthNotMultipleOfFour(let length): "the message length \(length) is not a multiple of 4"
        case .lengthMismatch(let declared, let actual): "the header says \(declared) bytes follow it, but \(actual) do"
        case .attributeOverrun(let type, let offset): "attribute \(type) at byte \(offset) runs past the end of the message"
        case .tooManyAttributes(let limit): "more than \(limit) attributes"
        case .attributeAfterFingerprint(let type): "attribute \(type) follows FINGERPRINT, which must be last"
        case .fingerprintLength(let length): "FINGERPRINT is 4 bytes, not \(length)"
        case .fingerprintMismatch(let expected, let found):
            "FINGERPRINT is 0x\(String(found, radix: 16)), the message's is 0x\(String(expected, radix: 16))"
        }
    }
}
