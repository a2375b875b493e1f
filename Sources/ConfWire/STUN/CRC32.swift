/// CRC-32 as IEEE 802.3, zlib and PNG compute it: the reflected polynomial 0xEDB88320, register
/// preset to all ones and complemented at the end. STUN's FINGERPRINT (RFC 8489 section 14.7) is
/// this CRC of the message XOR 0x5354554E. Check value: "123456789" gives 0xCBF43926.
public enum CRC32 {
    public static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }

    /// The CRC of each byte value alone, so that a byte costs one lookup instead of eight shifts.
    private static let table: [UInt32] = (0..<256).map { index in
        var crc = UInt32(index)
        for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        return crc
    }
}
