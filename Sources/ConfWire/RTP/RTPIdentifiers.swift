/// The wire values of RTP (RFC 3550 section 5.1) as their own types, so that an SSRC is never
/// passed where a sequence number or a payload type belongs.

/// A synchronisation source: names one RTP stream of one sender.
public struct SSRC: RawRepresentable, Hashable, Sendable, ExpressibleByIntegerLiteral, CustomStringConvertible {
    public var rawValue: UInt32

    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public init(_ rawValue: UInt32) { self.rawValue = rawValue }
    public init(integerLiteral value: UInt32) { rawValue = value }

    public static func random<R: RandomNumberGenerator>(using random: inout R) -> SSRC {
        SSRC(UInt32.random(in: 0...UInt32.max, using: &random))
    }

    /// Decimal, as SDP's `a=ssrc` writes it.
    public var description: String { String(rawValue) }
}

/// An RTP payload type: 7 bits, 0...127 (the eighth bit of its byte is the marker).
public struct PayloadType: RawRepresentable, Hashable, Sendable, ExpressibleByIntegerLiteral, CustomStringConvertible {
    public let rawValue: UInt8

    /// Nil above 127.
    public init?(rawValue: UInt8) {
        guard rawValue <= 127 else { return nil }
        self.rawValue = rawValue
    }

    /// The low 7 bits of `byte` (the second byte of an RTP header, marker included).
    public init(masking byte: UInt8) { rawValue = byte & 0x7F }

    public init(integerLiteral value: UInt8) {
        precondition(value <= 127, "an RTP payload type is 0...127")
        rawValue = value
    }

    public var description: String { String(rawValue) }
}

/// An RTP sequence number: 16 bits that wrap, so there is no total order. `isNewer(than:)` and
/// `distance(to:)` compare two numbers within half the space of each other (RFC 3550 appendix
/// A.1), which is how a receiver tells a late packet from the next one across 65535 -> 0.
public struct SequenceNumber: RawRepresentable, Hashable, Sendable, ExpressibleByIntegerLiteral, CustomStringConvertible {
    public var rawValue: UInt16

    public init(rawValue: UInt16) { self.rawValue = rawValue }
    public init(_ rawValue: UInt16) { self.rawValue = rawValue }
    public init(integerLiteral value: UInt16) { rawValue = value }
    /// The 16 bits on the wire of an extended (unwrapped, `SequenceUnwrapper`) number.
    public init(extended: UInt64) { rawValue = UInt16(truncatingIfNeeded: extended) }

    public static func random<R: RandomNumberGenerator>(using random: inout R) -> SequenceNumber {
        SequenceNumber(UInt16.random(in: 0...UInt16.max, using: &random))
    }

    /// Wrapping: 65535 &+ 1 is 0.
    public static func &+ (lhs: SequenceNumber, rhs: UInt16) -> SequenceNumber { SequenceNumber(lhs.rawValue &+ rhs) }
    public static func &- (lhs: SequenceNumber, rhs: UInt16) -> SequenceNumber { SequenceNumber(lhs.rawValue &- rhs) }
    public static func &+= (lhs: inout SequenceNumber, rhs: UInt16) { lhs = lhs &+ rhs }

    /// How far ahead `other` is, -32768...32767: positive when `other` came after this one (1 for
    /// the next, also from 65535 to 0), negative when before.
    public func distance(to other: SequenceNumber) -> Int { Int(Int16(bitPattern: other.rawValue &- rawValue)) }

    /// Whether this number follows `other` (by less than half the space).
    public func isNewer(than other: SequenceNumber) -> Bool { other.distance(to: self) > 0 }

    public var description: String { String(rawValue) }
}

/// RTP sequence numbers wrap at 65536; this orders and unwraps them (RFC 3550 appendix A.1).
public struct SequenceUnwrapper: Sendable {
    private var last: UInt64?

    public init() {}

    /// The extended (64-bit, never wrapping) number of `sequence`, assuming it is within half the
    /// space of the last one seen.
    public mutating func unwrap(_ sequence: SequenceNumber) -> UInt64 {
        guard let last else {
            let first = UInt64(sequence.rawValue) + 65_536  // room for reordered packets just before the first
            self.last = first
            return first
        }
        let lastLow = SequenceNumber(extended: last)
        let value = UInt64(max(0, Int64(last) + Int64(lastLow.distance(to: sequence))))
        if value > last { self.last = value }
        return value
    }
}
