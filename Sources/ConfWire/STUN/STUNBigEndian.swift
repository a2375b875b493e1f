/// Network-order reads and writes for the STUN files. Reads index the array directly: callers
/// check the bounds first.
extension [UInt8] {
    func stunUInt16(at index: Int) -> UInt16 { UInt16(self[index]) << 8 | UInt16(self[index + 1]) }

    func stunUInt32(at index: Int) -> UInt32 { UInt32(stunUInt16(at: index)) << 16 | UInt32(stunUInt16(at: index + 2)) }

    mutating func appendSTUN(_ value: UInt16) { append(contentsOf: [UInt8(value >> 8), UInt8(value & 0xFF)]) }

    mutating func appendSTUN(_ value: UInt32) {
        appendSTUN(UInt16(value >> 16))
        appendSTUN(UInt16(value & 0xFFFF))
    }
}
