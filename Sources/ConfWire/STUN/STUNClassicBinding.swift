/// RFC 3489 ("classic STUN") Binding requests, answered as RFC 8489 section 12 says a server
/// should: with MAPPED-ADDRESS alone, no XOR and no FINGERPRINT. libnice gathers its
/// server-reflexive candidates with them (its discovery speaks RFC 3489 so that old servers
/// answer), so a STUN server for conf's participants must answer them.
///
/// A classic header has the same layout as RFC 8489's, but bytes 4-19 are all transaction id
/// (no magic cookie); they are echoed whole. RFC 3489 knows IPv4 only.
enum STUNClassicBinding {
    /// The answer to `datagram` from `source`, or nil: not a classic Binding request (type 0x0001,
    /// length a multiple of 4 that fits the datagram, attributes that fit), an IPv6 source, or a
    /// CHANGE-REQUEST this server (with one address) cannot honour.
    static func respond(to datagram: [UInt8], from source: STUNTransportAddress) -> [UInt8]? {
        guard datagram.count >= STUNMessage.headerSize, datagram.count <= STUNMessage.maximumSize,
              datagram[0] == 0x00, datagram[1] == 0x01, datagram.stunUInt32(at: 4) != STUNMessage.magicCookie,
              source.address.count == 4 else { return nil }
        let length = Int(datagram.stunUInt16(at: 2))
        guard length % 4 == 0, length == datagram.count - STUNMessage.headerSize else { return nil }
        var offset = STUNMessage.headerSize
        while offset < datagram.count {
            // RFC 3489 attributes are not padded: each length must be a multiple of 4 itself.
            let type = datagram.stunUInt16(at: offset), valueLength = Int(datagram.stunUInt16(at: offset + 2))
            guard valueLength % 4 == 0, valueLength <= datagram.count - offset - 4 else { return nil }
            if type == changeRequest, valueLength == 4, datagram.stunUInt32(at: offset + 4) & 0x6 != 0 { return nil }
            offset += 4 + valueLength
        }
        var answer: [UInt8] = [0x01, 0x01]
        let mapped = source.attributeValue(xorWith: nil)
        answer.appendSTUN(UInt16(4 + mapped.count))
        answer += datagram[4..<20]
        answer.appendSTUN(STUNAttributeType.mappedAddress.rawValue)
        answer.appendSTUN(UInt16(mapped.count))
        answer += mapped
        return answer
    }

    /// CHANGE-REQUEST (RFC 3489 section 11.2.4): flags 0x4 change IP, 0x2 change port.
    private static let changeRequest: UInt16 = 0x0003
}
