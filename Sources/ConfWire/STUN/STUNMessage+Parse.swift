extension STUNMessage {
    /// Reads one STUN message that fills `bytes` (a UDP datagram), or throws what is wrong with it.
    /// Header (RFC 8489 section 5), then attributes until the end (section 14):
    ///
    ///      0                   1                   2                   3
    ///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
    ///     |0 0|     STUN Message Type     |         Message Length        |
    ///     |                         Magic Cookie                          |
    ///     |                     Transaction ID (96 bits)                  |
    ///     |                                                               |
    ///     |         Type                  |            Length             |  (each attribute)
    ///     |                         Value (variable)                ....  |  (padded to 4 bytes)
    ///
    /// The message length counts the bytes after the header and must equal them. A value's
    /// padding may hold anything and is not kept. FINGERPRINT (section 14.7), when present, must
    /// be the last attribute and hold the CRC-32 of every byte before it XOR 0x5354554E.
    public static func parse(_ bytes: [UInt8]) throws(STUNError) -> STUNMessage {
        guard bytes.count <= maximumSize else { throw .tooLarge(size: bytes.count) }
        guard bytes.count >= headerSize else { throw .truncatedHeader(size: bytes.count) }
        guard bytes[0] & 0xC0 == 0 else { throw .leadingBitsSet }
        let cookie = bytes.stunUInt32(at: 4)
        guard cookie == magicCookie else { throw .wrongMagicCookie(cookie) }
        let length = Int(bytes.stunUInt16(at: 2))
        guard length % 4 == 0 else { throw .lengthNotMultipleOfFour(length) }
        guard length == bytes.count - headerSize else { throw .lengthMismatch(declared: length, actual: bytes.count - headerSize) }

        let (messageClass, method) = decodeType(bytes.stunUInt16(at: 0))
        var message = STUNMessage(messageClass, method, transactionID: STUNTransactionID(Array(bytes[8..<20]))!, fingerprinted: false)
        var offset = headerSize
        var count = 0
        while offset < bytes.count {
            // The length is a multiple of 4 and so is every padded attribute: 4 header bytes remain.
            let type = STUNAttributeType(rawValue: bytes.stunUInt16(at: offset))
            guard !message.fingerprinted else { throw .attributeAfterFingerprint(type) }
            guard count < maximumAttributes else { throw .tooManyAttributes(limit: maximumAttributes) }
            let valueLength = Int(bytes.stunUInt16(at: offset + 2))
            let valueStart = offset + 4
            let paddedLength = (valueLength + 3) & ~3
            guard paddedLength <= bytes.count - valueStart else { throw .attributeOverrun(type: type, offset: offset) }
            let value = Array(bytes[valueStart..<(valueStart + valueLength)])
            if type == .fingerprint {
                guard valueLength == 4 else { throw .fingerprintLength(valueLength) }
                let expected = CRC32.checksum(bytes[..<offset]) ^ fingerprintXOR
                let found = value.stunUInt32(at: 0)
                guard found == expected else { throw .fingerprintMismatch(expected: expected, found: found) }
                message.fingerprinted = true
            } else {
                message.attributes.append(STUNAttribute(type, value))
            }
            count += 1
            offset = valueStart + paddedLength
        }
        return message
    }

    /// The class and method interleaved in the 14-bit message type (section 5):
    ///
    ///      0                 1
    ///      2  3  4 5 6 7 8 9 0 1 2 3 4 5
    ///     |M |M |M|M|M|C|M|M|M|C|M|M|M|M|
    ///     |11|10|9|8|7|1|6|5|4|0|3|2|1|0|
    static func decodeType(_ type: UInt16) -> (Class, STUNMethod) {
        let classBits = UInt8(type >> 7 & 0b10 | type >> 4 & 0b01)
        let method = type & 0x000F | type >> 1 & 0x0070 | type >> 2 & 0x0F80
        return (Class(rawValue: classBits)!, STUNMethod(rawValue: method)!)
    }

    static func encodeType(_ messageClass: Class, _ method: STUNMethod) -> UInt16 {
        let m = method.rawValue, c = UInt16(messageClass.rawValue)
        return m & 0x000F | (m & 0x0070) << 1 | (m & 0x0F80) << 2 | (c & 0b01) << 4 | (c & 0b10) << 7
    }
}
