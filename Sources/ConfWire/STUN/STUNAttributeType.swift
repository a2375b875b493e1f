/// A STUN attribute's type (RFC 8489 section 14, IANA "STUN Attributes"). Types 0x0000-0x7FFF are
/// comprehension-required: a receiver that does not know one must refuse the message (a server
/// answers 420, section 6.3.1); 0x8000-0xFFFF may be ignored.
public struct STUNAttributeType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt16

    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public var isComprehensionRequired: Bool { rawValue < 0x8000 }

    public static let mappedAddress = Self(rawValue: 0x0001)
    public static let username = Self(rawValue: 0x0006)
    public static let messageIntegrity = Self(rawValue: 0x0008)
    public static let errorCode = Self(rawValue: 0x0009)
    public static let unknownAttributes = Self(rawValue: 0x000A)
    public static let messageIntegritySHA256 = Self(rawValue: 0x001C)
    public static let xorMappedAddress = Self(rawValue: 0x0020)
    /// ICE (RFC 8445 section 16.1): PRIORITY, USE-CANDIDATE, ICE-CONTROLLED, ICE-CONTROLLING.
    public static let priority = Self(rawValue: 0x0024)
    public static let useCandidate = Self(rawValue: 0x0025)
    /// TURN (RFC 8656 section 18.7): the relay's transport, 17 for UDP.
    public static let requestedTransport = Self(rawValue: 0x0019)
    public static let software = Self(rawValue: 0x8022)
    public static let fingerprint = Self(rawValue: 0x8028)
    public static let iceControlled = Self(rawValue: 0x8029)
    public static let iceControlling = Self(rawValue: 0x802A)

    /// "0x8022", as the RFCs write types.
    public var description: String {
        let hex = String(rawValue, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: 4 - hex.count) + hex
    }
}
