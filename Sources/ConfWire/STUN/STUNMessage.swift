import ConfCore

/// A STUN message (RFC 8489 section 5): its class and method, a transaction id and attributes in
/// the order they came. FINGERPRINT is not among `attributes`: parsing checks it and records that
/// it was there in `fingerprinted`, and `bytes` writes it last when `fingerprinted` is set.
public struct STUNMessage: Equatable, Sendable {
    /// What a message is (section 6): the two C bits of the message type.
    public enum Class: UInt8, Sendable {
        case request = 0b00, indication = 0b01, successResponse = 0b10, errorResponse = 0b11
    }

    public var messageClass: Class
    public var method: STUNMethod
    public var transactionID: STUNTransactionID
    public var attributes: [STUNAttribute]
    public var fingerprinted: Bool

    public init(_ messageClass: Class, _ method: STUNMethod, transactionID: STUNTransactionID, attributes: [STUNAttribute] = [],
                fingerprinted: Bool = true) {
        self.messageClass = messageClass
        self.method = method
        self.transactionID = transactionID
        self.attributes = attributes
        self.fingerprinted = fingerprinted
    }

    /// The value of the first attribute of `type`; section 14 says a receiver reads only the first.
    public func value(of type: STUNAttributeType) -> [UInt8]? {
        attributes.first { $0.type == type }?.value
    }

    /// Between the message length and the transaction id of every RFC 5389/8489 message.
    public static let magicCookie: UInt32 = 0x2112_A442
    /// XORed into FINGERPRINT's CRC so that it differs from any CRC another protocol carries there.
    public static let fingerprintXOR: UInt32 = 0x5354_554E
    public static let headerSize = 20
    /// The largest datagram read. STUN over UDP stays under the path MTU (section 6.2.1 says 576
    /// bytes for IPv4 unless it is known); Binding requests from browsers and libnice are under 200.
    public static let maximumSize = 1500
    /// The most attributes read, FINGERPRINT included. A Binding request carries at most eight or
    /// so; the bound keeps what an UNKNOWN-ATTRIBUTES answer lists small.
    public static let maximumAttributes = 64
}

/// A STUN method: 12 bits of the message type (section 5). conf knows Binding (section 18.2).
public struct STUNMethod: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt16

    /// Nil when `rawValue` needs more than 12 bits.
    public init?(rawValue: UInt16) {
        guard rawValue < 0x1000 else { return nil }
        self.rawValue = rawValue
    }

    public static let binding = Self(rawValue: 0x001)!
    /// TURN's Allocate (RFC 8656 section 7.2).
    public static let allocate = Self(rawValue: 0x003)!
}

/// The 96-bit id that pairs a response with its request (section 5); a client picks it at random.
public struct STUNTransactionID: Hashable, Sendable, CustomStringConvertible {
    public let bytes: [UInt8]

    /// Nil unless `bytes` is 12 bytes long.
    public init?(_ bytes: [UInt8]) {
        guard bytes.count == 12 else { return nil }
        self.bytes = bytes
    }

    /// A fresh id from `generator`; for requests conf sends, the kernel's CSPRNG.
    public init(using generator: inout some RandomNumberGenerator) {
        bytes = (0..<12).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    public var description: String { Hex.string(bytes) }
}

/// One attribute: its type and its value without the padding to a multiple of 4 bytes.
public struct STUNAttribute: Equatable, Sendable {
    public var type: STUNAttributeType
    public var value: [UInt8]

    public init(_ type: STUNAttributeType, _ value: [UInt8]) {
        self.type = type
        self.value = value
    }
}
