extension STUNMessage {
    /// The message on the wire (RFC 8489 sections 5 and 14): values padded with zeros to 4 bytes,
    /// and FINGERPRINT last when `fingerprinted`. The message must fit the 16-bit length: conf
    /// writes only its own small messages and ones it parsed (at most `maximumSize`).
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        out.appendSTUN(Self.encodeType(messageClass, method))
        out.appendSTUN(UInt16(0))  // the length, once known
        out.appendSTUN(Self.magicCookie)
        out += transactionID.bytes
        for attribute in attributes {
            out.appendSTUN(attribute.type.rawValue)
            out.appendSTUN(UInt16(attribute.value.count))
            out += attribute.value
            out += repeatElement(0, count: (4 - attribute.value.count % 4) % 4)
        }
        if fingerprinted {
            // The length covers FINGERPRINT before its CRC is taken (section 14.7).
            setLength(of: &out, to: out.count + 8 - Self.headerSize)
            let crc = CRC32.checksum(out) ^ Self.fingerprintXOR
            out.appendSTUN(STUNAttributeType.fingerprint.rawValue)
            out.appendSTUN(UInt16(4))
            out.appendSTUN(crc)
        }
        setLength(of: &out, to: out.count - Self.headerSize)
        return out
    }

    private func setLength(of message: inout [UInt8], to length: Int) {
        message[2] = UInt8(length >> 8)
        message[3] = UInt8(length & 0xFF)
    }
}
