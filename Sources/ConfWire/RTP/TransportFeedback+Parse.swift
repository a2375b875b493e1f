extension TransportFeedback {
    /// Reads the part of an RTPFB FMT 15 packet after its 4-byte RTCP header
    /// (draft-holmer-rmcat-transport-wide-cc-extensions-01 section 3.1); `padded` is the header's
    /// P bit (RFC 3550 section 6.4.1: the last byte counts the padding). Nil when the packet does
    /// not carry what it claims: chunks or deltas missing, a reserved symbol.
    ///
    ///      0                   1                   2                   3
    ///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
    ///     |V=2|P|  FMT=15 |    PT=205     |           length              |  (the header, not in `body`)
    ///     |                     SSRC of packet sender                     |
    ///     |                      SSRC of media source                     |
    ///     |      base sequence number     |      packet status count      |
    ///     |                 reference time                | fb pkt. count |
    ///     |          packet chunk         |         packet chunk          |
    ///     .                              ...                              .
    ///     |         packet chunk          |  recv delta   |  recv delta   |
    ///     .                              ...                              .
    ///     |           recv delta          |  recv delta   | zero padding  |
    ///
    /// Chunks (`PacketStatusChunkWriter`) are read until they cover the status count; symbols of a
    /// last vector beyond it are ignored. Then one delta per received packet: one unsigned byte
    /// for symbol 01, two bytes signed for 10. Bytes after the deltas (zero padding) are ignored.
    public init?(rtcpBody body: [UInt8], padded: Bool = false) {
        var end = body.count
        if padded {
            guard let padding = body.last, padding > 0, Int(padding) <= end else { return nil }
            end -= Int(padding)
        }
        guard end >= 16 else { return nil }
        func u16(_ i: Int) -> UInt16 { UInt16(body[i]) << 8 | UInt16(body[i + 1]) }
        func u32(_ i: Int) -> UInt32 { UInt32(u16(i)) << 16 | UInt32(u16(i + 2)) }
        let statusCount = Int(u16(10))
        // First the chunks alone: how many delta bytes they promise, so that nothing the size of
        // the status count is allocated for a packet that does not carry its deltas.
        var chunkEnd = 16
        var covered = 0
        var deltaBytes = 0
        while covered < statusCount {
            guard chunkEnd + 2 <= end else { return nil }
            var reserved = false
            Self.forEachRun(in: u16(chunkEnd), upTo: statusCount - covered) { symbol, run in
                covered += run
                switch symbol {
                case PacketStatusChunkWriter.smallDelta: deltaBytes += run
                case PacketStatusChunkWriter.largeDelta: deltaBytes += 2 * run
                case PacketStatusChunkWriter.notReceived: break
                default: reserved = run > 0  // 11 is reserved in -01
                }
            }
            guard !reserved else { return nil }
            chunkEnd += 2
        }
        guard chunkEnd + deltaBytes <= end else { return nil }
        var packets: [PacketResult] = []
        packets.reserveCapacity(statusCount)
        var delta = chunkEnd
        for chunk in stride(from: 16, to: chunkEnd, by: 2) {
            Self.forEachRun(in: u16(chunk), upTo: statusCount - packets.count) { symbol, run in
                for _ in 0..<run {
                    if symbol == PacketStatusChunkWriter.smallDelta {
                        packets.append(.received(delta: Int16(body[delta])))
                        delta += 1
                    } else if symbol == PacketStatusChunkWriter.largeDelta {
                        packets.append(.received(delta: Int16(bitPattern: u16(delta))))
                        delta += 2
                    } else {
                        packets.append(.notReceived)
                    }
                }
            }
        }
        let reference = Int64(body[12]) << 16 | Int64(body[13]) << 8 | Int64(body[14])
        self.init(senderSSRC: SSRC(u32(0)), mediaSSRC: SSRC(u32(4)), baseSequence: SequenceNumber(u16(8)),
                  referenceTime: Self.referenceTime(wrapping: reference), feedbackPacketCount: body[15], packets: packets)
    }

    /// Calls `body` with each run of one symbol in `chunk`, at most `limit` statuses in all: a
    /// run-length chunk is one run, a vector one run per symbol.
    private static func forEachRun(in chunk: UInt16, upTo limit: Int, _ body: (_ symbol: UInt8, _ run: Int) -> Void) {
        if chunk & 0x8000 == 0 {
            body(UInt8(chunk >> 13 & 3), min(Int(chunk & 0x1FFF), limit))
        } else if chunk & 0x4000 == 0 {
            for i in 0..<min(14, limit) { body(UInt8(chunk >> (13 - i) & 1), 1) }
        } else {
            for i in 0..<min(7, limit) { body(UInt8(chunk >> (12 - 2 * i) & 3), 1) }
        }
    }
}
