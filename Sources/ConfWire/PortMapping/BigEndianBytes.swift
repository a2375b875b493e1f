/// Network-order fields for the port-mapping codecs. Reads are from callers that checked the length.
extension Array where Element == UInt8 {
    mutating func appendBigEndian(_ value: UInt16) {
        append(UInt8(value >> 8))
        append(UInt8(truncatingIfNeeded: value))
    }

    mutating func appendBigEndian(_ value: UInt32) {
        appendBigEndian(UInt16(value >> 16))
        appendBigEndian(UInt16(truncatingIfNeeded: value))
    }

    func bigEndianUInt16(at offset: Int) -> UInt16 { UInt16(self[offset]) << 8 | UInt16(self[offset + 1]) }

    func bigEndianUInt32(at offset: Int) -> UInt32 { UInt32(bigEndianUInt16(at: offset)) << 16 | UInt32(bigEndianUInt16(at: offset + 2)) }
}
