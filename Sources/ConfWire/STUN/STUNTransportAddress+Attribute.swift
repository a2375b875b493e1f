extension STUNTransportAddress {
    /// The value of MAPPED-ADDRESS (RFC 8489 section 14.1), or of XOR-MAPPED-ADDRESS (section
    /// 14.2) when `transactionID` is given:
    ///
    ///      0                   1                   2                   3
    ///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
    ///     |0 0 0 0 0 0 0 0|    Family     |         X-Port                |
    ///     |                X-Address (Variable)
    ///
    /// X-Port is the port XOR the cookie's top 16 bits; X-Address is an IPv4 address XOR the
    /// cookie, or an IPv6 address XOR the cookie followed by the transaction id.
    public func attributeValue(xorWith transactionID: STUNTransactionID?) -> [UInt8] {
        let key = Self.key(transactionID)
        var value: [UInt8] = [0, family.rawValue]
        value.appendSTUN(port ^ key.stunUInt16(at: 0))
        value += zip(address, key).map { $0 ^ $1 }
        return value
    }

    /// Reads what `attributeValue(xorWith:)` writes; nil for an unknown family or a length that
    /// does not fit it. The first byte is ignored, as section 14.1 asks.
    public init?(attributeValue value: [UInt8], xorWith transactionID: STUNTransactionID?) {
        guard value.count >= 4, let family = Family(rawValue: value[1]), value.count == (family == .ipv4 ? 8 : 20) else { return nil }
        let key = Self.key(transactionID)
        self.init(address: zip(value[4...], key).map { $0 ^ $1 }, port: value.stunUInt16(at: 2) ^ key.stunUInt16(at: 0))
    }

    /// The 16 bytes XORed into the port and address: the cookie and transaction id, or zeros.
    private static func key(_ transactionID: STUNTransactionID?) -> [UInt8] {
        guard let transactionID else { return Array(repeating: 0, count: 16) }
        var key: [UInt8] = []
        key.appendSTUN(STUNMessage.magicCookie)
        return key + transactionID.bytes
    }
}
