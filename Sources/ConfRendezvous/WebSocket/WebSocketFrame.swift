/// The wire layout of a WebSocket frame (RFC 6455 §5.2): server frames written, client frame
/// headers read and checked, client payloads unmasked.
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +-+-+-+-+-------+-+-------------+-------------------------------+
///     |F|R|R|R| opcode|M| Payload len |    Extended payload length    |
///     |I|S|S|S|  (4)  |A|     (7)     |             (16/64)           |
///     |N|V|V|V|       |S|             |   (if payload len==126/127)   |
///     | |1|2|3|       |K|             |                               |
///     +-+-+-+-+-------+-+-------------+ - - - - - - - - - - - - - - - +
///     |     Extended payload length continued, if payload len == 127  |
///     + - - - - - - - - - - - - - - - +-------------------------------+
///     |                               |Masking-key, if MASK set to 1  |
///     +-------------------------------+-------------------------------+
///     | Masking-key (continued)       |          Payload Data         |
///     +-------------------------------- - - - - - - - - - - - - - - - +
public enum WebSocketFrame {
    /// A server frame (never masked, FIN set): opcode 1 text.
    public static func text(_ text: String) -> [UInt8] { frame(opcode: Opcode.text, payload: Array(text.utf8)) }

    /// A Pong (RFC 6455 §5.5.3) echoing a Ping's payload; a control frame carries at most 125 bytes,
    /// so a longer payload is cut (a Ping the reader passed is never longer).
    public static func pong(_ payload: [UInt8]) -> [UInt8] { frame(opcode: Opcode.pong, payload: Array(payload.prefix(125))) }

    /// A Close frame with code and reason (reason cut to fit 123 bytes at a UTF-8 character boundary).
    public static func close(code: UInt16, reason: String) -> [UInt8] {
        var text = Array(reason.utf8.prefix(124))
        if text.count > 123 {
            var cut = 123
            while cut > 0 && text[cut] & 0xC0 == 0x80 { cut -= 1 }  // back off a character's continuation bytes
            text.removeSubrange(cut...)
        }
        return frame(opcode: Opcode.close, payload: [UInt8(code >> 8), UInt8(code & 0xFF)] + text)
    }

    /// FIN set, no mask (RFC 6455 §5.1: a server never masks), the length in its shortest form.
    private static func frame(opcode: UInt8, payload: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = [0x80 | opcode]
        bytes.reserveCapacity(payload.count + 10)
        switch payload.count {
        case ..<126: bytes.append(UInt8(payload.count))
        case ...0xFFFF: bytes += [126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default:
            bytes.append(127)
            let length = UInt64(payload.count)
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: length >> UInt64(shift))) }
        }
        return bytes + payload
    }

    enum Opcode {
        static let continuation: UInt8 = 0x0, text: UInt8 = 0x1, binary: UInt8 = 0x2
        static let close: UInt8 = 0x8, ping: UInt8 = 0x9, pong: UInt8 = 0xA
    }

    /// A client frame's header, checked.
    struct Header: Equatable {
        let fin: Bool
        let opcode: UInt8
        /// At most what the reader allowed, so an Int on any platform.
        let payloadLength: Int
        /// Its four bytes in order, the first in the top eight bits.
        let maskKey: UInt32
        /// Bytes the header took: 6, 8 or 14.
        let byteCount: Int

        var isControl: Bool { opcode & 0x8 != 0 }
    }

    enum HeaderRead: Equatable {
        case needMore
        case header(Header)
        /// Close the connection with this code (RFC 6455 §7.4.1).
        case violation(code: UInt16, message: String)
    }

    /// Reads and checks the header at the start of `bytes`, failing as soon as the bytes so far
    /// show a violation. `messageOpen`: a fragmented message has begun. `dataRoom`: payload bytes
    /// the current message may still take, of `limit` in all.
    static func readHeader(_ bytes: UnsafeRawBufferPointer, messageOpen: Bool, dataRoom: Int, limit: Int) -> HeaderRead {
        guard bytes.count >= 2 else { return .needMore }
        let first = bytes[0], second = bytes[1]
        let fin = first & 0x80 != 0, opcode = first & 0x0F, shortLength = second & 0x7F
        // §5.2: RSV1-3 are 0 unless an extension says otherwise, and none was negotiated.
        guard first & 0x70 == 0 else { return protocolError("A frame sets a reserved bit (RSV1-3) though no extension was agreed.") }
        guard [Opcode.continuation, Opcode.text, Opcode.binary, Opcode.close, Opcode.ping, Opcode.pong].contains(opcode) else {
            return protocolError("A frame has a reserved opcode.")
        }
        // §5.1: a server closes the connection on an unmasked client frame.
        guard second & 0x80 != 0 else { return protocolError("A client frame is not masked (RFC 6455 section 5.1).") }
        if opcode & 0x8 != 0 {
            // §5.5: control frames are never fragmented and carry at most 125 bytes.
            guard fin else { return protocolError("A control frame is fragmented (RFC 6455 section 5.5).") }
            guard shortLength <= 125 else { return protocolError("A control frame is longer than 125 bytes (RFC 6455 section 5.5).") }
        } else if opcode == Opcode.continuation {
            guard messageOpen else { return protocolError("A continuation frame came with no message begun (RFC 6455 section 5.4).") }
        } else {
            guard !messageOpen else { return protocolError("A new message began before the fragmented one ended (RFC 6455 section 5.4).") }
        }
        let extendedBytes = shortLength == 127 ? 8 : shortLength == 126 ? 2 : 0
        guard bytes.count >= 2 + extendedBytes else { return .needMore }
        var length = UInt64(shortLength)
        if extendedBytes > 0 {
            length = (0..<extendedBytes).reduce(0) { $0 << 8 | UInt64(bytes[2 + $1]) }
            // §5.2: "the most significant bit MUST be 0", and "the minimal number of bytes MUST be used".
            guard length >> 63 == 0 else { return protocolError("A frame's 64-bit length has its most significant bit set.") }
            guard length >= (extendedBytes == 2 ? 126 : 0x1_0000) else { return protocolError("A frame's length is not in its shortest form.") }
        }
        // Both sides of the comparison are at most Int.max: nothing is added, nothing overflows.
        if opcode & 0x8 == 0 && length > UInt64(max(0, dataRoom)) {
            return .violation(code: 1009, message: "A message is longer than \(limit) bytes, the most accepted.")
        }
        let maskAt = 2 + extendedBytes
        guard bytes.count >= maskAt + 4 else { return .needMore }
        let maskKey = (0..<4).reduce(UInt32(0)) { $0 << 8 | UInt32(bytes[maskAt + $1]) }
        return .header(Header(fin: fin, opcode: opcode, payloadLength: Int(length), maskKey: maskKey, byteCount: maskAt + 4))
    }

    private static func protocolError(_ message: String) -> HeaderRead { .violation(code: 1002, message: message) }

    /// XORs `bytes` with the mask key (RFC 6455 §5.3), `phase` being how many of the frame's payload
    /// bytes came before them. Eight bytes at a time: a payload can be a whole message.
    static func unmask(_ bytes: UnsafeMutableRawBufferPointer, key: UInt32, phase: Int) {
        let keyByte = { (i: Int) in UInt8(truncatingIfNeeded: key >> UInt32(24 - 8 * ((phase + i) & 3))) }
        // Byte i of the word in memory is key byte (phase + i) mod 4, whatever the machine's byte order.
        let word = UInt64(littleEndian: (0..<8).reduce(UInt64(0)) { $0 | UInt64(keyByte($1)) << UInt64(8 * $1) })
        var index = 0
        while index + 8 <= bytes.count {
            let masked = bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            bytes.storeBytes(of: masked ^ word, toByteOffset: index, as: UInt64.self)
            index += 8
        }
        while index < bytes.count {
            bytes[index] ^= keyByte(index)
            index += 1
        }
    }
}
