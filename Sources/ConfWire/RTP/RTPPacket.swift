/// An RTP packet (RFC 3550 section 5.1) with RFC 8285 one-byte header extensions.
///
///      0                   1                   2                   3
///     |V=2|P|X|  CC   |M|     PT      |       sequence number         |
///     |                           timestamp                           |
///     |                             SSRC                              |
///     |                      CSRC list (CC x 32 bits)                 |
///     |      0xBEDE (one-byte ext)    |        length in words        |   (when X)
///     |  ID | L |  data ...  (ID 1..14, L = data length - 1), padding  |
public struct RTPPacket: Equatable, Sendable {
    public var marker: Bool
    public var payloadType: PayloadType
    public var sequenceNumber: SequenceNumber
    public var timestamp: UInt32
    public var ssrc: SSRC
    public var csrcs: [SSRC]
    /// One-byte extension elements by id (1...14).
    public var extensions: RTPHeaderExtensions
    public var payload: [UInt8]

    public init(marker: Bool = false, payloadType: PayloadType, sequenceNumber: SequenceNumber, timestamp: UInt32, ssrc: SSRC,
                csrcs: [SSRC] = [], extensions: RTPHeaderExtensions = [:], payload: [UInt8]) {
        self.marker = marker
        self.payloadType = payloadType
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.ssrc = ssrc
        self.csrcs = csrcs
        self.extensions = extensions
        self.payload = payload
    }

    /// Nil when the bytes are not a well-formed RTP packet.
    public init?(bytes: [UInt8]) {
        guard bytes.count >= 12, bytes[0] >> 6 == 2 else { return nil }
        let hasPadding = bytes[0] & 0x20 != 0
        let hasExtension = bytes[0] & 0x10 != 0
        let csrcCount = Int(bytes[0] & 0x0F)
        marker = bytes[1] & 0x80 != 0
        payloadType = PayloadType(masking: bytes[1])
        sequenceNumber = SequenceNumber(UInt16(bytes[2]) << 8 | UInt16(bytes[3]))
        timestamp = Self.u32(bytes, 4)
        ssrc = SSRC(Self.u32(bytes, 8))
        var offset = 12
        guard bytes.count >= offset + csrcCount * 4 else { return nil }
        csrcs = csrcCount == 0 ? [] : (0..<csrcCount).map { SSRC(Self.u32(bytes, 12 + $0 * 4)) }
        offset += csrcCount * 4
        extensions = RTPHeaderExtensions()
        if hasExtension {
            guard bytes.count >= offset + 4 else { return nil }
            let profile = UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
            let length = (Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])) * 4
            offset += 4
            guard bytes.count >= offset + length else { return nil }
            if profile == 0xBEDE {
                var i = offset
                while i < offset + length {
                    let id = bytes[i] >> 4
                    if id == 0 { i += 1; continue }  // padding
                    if id == 15 { break }  // reserved: stop (RFC 8285 section 4.2)
                    let size = Int(bytes[i] & 0x0F) + 1
                    guard i + 1 + size <= offset + length else { return nil }
                    extensions.set(id, bytes[(i + 1)..<(i + 1 + size)])
                    i += 1 + size
                }
            }
            offset += length
        }
        var end = bytes.count
        if hasPadding {
            let padding = Int(bytes[end - 1])
            guard padding > 0, end - padding >= offset else { return nil }
            end -= padding
        }
        payload = Array(bytes[offset..<end])
    }

    public var bytes: [UInt8] { bytes() }

    /// The packet on the wire, built in one buffer. `stamping` puts one more extension element in
    /// (or replaces the packet's own of that id) without copying the packet; `padding` octets
    /// (0...255, RFC 3550 section 5.1: the last one holds the count) follow the payload with the
    /// P bit set.
    public func bytes(stamping stamp: (id: UInt8, data: [UInt8])? = nil, padding: Int = 0) -> [UInt8] {
        // Which ids (1...14) have an element with data, as bits, in the order they are written.
        var present: UInt16 = 0
        var elementBytes = 0
        for (id, data) in extensions where (1...14).contains(id) && !data.isEmpty && id != stamp?.id {
            present |= 1 << id
            elementBytes += 1 + min(16, data.count)
        }
        if let stamp, (1...14).contains(stamp.id), !stamp.data.isEmpty {
            present |= 1 << stamp.id
            elementBytes += 1 + min(16, stamp.data.count)
        }
        let padding = min(255, max(0, padding))
        let blockWords = (elementBytes + 3) / 4
        let csrcCount = min(csrcs.count, 15)
        var out: [UInt8] = []
        out.reserveCapacity(12 + 4 * csrcCount + (present == 0 ? 0 : 4 + 4 * blockWords) + payload.count + padding)
        out.append(0x80 | (padding > 0 ? 0x20 : 0) | (present == 0 ? 0 : 0x10) | UInt8(csrcCount))
        out.append((marker ? 0x80 : 0) | payloadType.rawValue)
        out.append(UInt8(sequenceNumber.rawValue >> 8))
        out.append(UInt8(sequenceNumber.rawValue & 0xFF))
        Self.append(timestamp, &out)
        Self.append(ssrc.rawValue, &out)
        for csrc in csrcs.prefix(15) { Self.append(csrc.rawValue, &out) }
        if present != 0 {
            out.append(0xBE)
            out.append(0xDE)
            out.append(UInt8(blockWords >> 8))
            out.append(UInt8(blockWords & 0xFF))
            for id in UInt8(1)...14 where present & (1 << id) != 0 {
                let data = (id == stamp?.id ? stamp?.data[...] : extensions.data(id))!.prefix(16)
                out.append(id << 4 | UInt8(data.count - 1))
                out.append(contentsOf: data)
            }
            for _ in elementBytes..<(blockWords * 4) { out.append(0) }
        }
        out.append(contentsOf: payload)
        if padding > 0 {
            for _ in 1..<padding { out.append(0) }
            out.append(UInt8(padding))
        }
        return out
    }

    private static func u32(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
    }

    private static func append(_ word: UInt32, _ out: inout [UInt8]) {
        out.append(UInt8(word >> 24))
        out.append(UInt8(word >> 16 & 0xFF))
        out.append(UInt8(word >> 8 & 0xFF))
        out.append(UInt8(word & 0xFF))
    }
}

/// The client-to-mixer audio level (RFC 6464): one byte, V (voice activity) and the level in
/// -dBov, 0 (loudest) to 127 (silence).
public struct AudioLevel: Equatable, Sendable {
    public var voiceActivity: Bool
    public var level: UInt8

    public init(voiceActivity: Bool, level: UInt8) {
        self.voiceActivity = voiceActivity
        self.level = min(level, 127)
    }

    public init?(_ bytes: [UInt8]) {
        guard let byte = bytes.first else { return nil }
        voiceActivity = byte & 0x80 != 0
        level = byte & 0x7F
    }

    public var bytes: [UInt8] { [(voiceActivity ? 0x80 : 0) | level] }
}
