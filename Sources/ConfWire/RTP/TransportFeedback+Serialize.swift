extension TransportFeedback {
    /// The whole RTCP packet (header, FMT 15, PT 205), zero-padded to 32 bits without the P bit,
    /// as the draft's figure shows. Sends at most `maximumPacketCount` packets; a
    /// `TransportFeedbackBuilder` keeps a feedback to a size instead.
    public var bytes: [UInt8] {
        let reported = packets.prefix(Self.maximumPacketCount)
        var writer = PacketStatusChunkWriter()
        var deltas: [UInt8] = []
        for result in reported {
            writer.add(result.symbol)
            if case .received(let delta) = result {
                if result.symbol == PacketStatusChunkWriter.smallDelta {
                    deltas.append(UInt8(delta))
                } else {
                    deltas += [UInt8(UInt16(bitPattern: delta) >> 8), UInt8(UInt16(bitPattern: delta) & 0xFF)]
                }
            }
        }
        var body: [UInt8] = []
        body.reserveCapacity(Self.packetSize(chunks: writer.chunkCount, deltaBytes: deltas.count))
        for word in [senderSSRC.rawValue, mediaSSRC.rawValue, UInt32(baseSequence.rawValue) << 16 | UInt32(reported.count),
                     UInt32(bitPattern: referenceTime) << 8 | UInt32(feedbackPacketCount)] {
            body += [UInt8(word >> 24), UInt8(word >> 16 & 0xFF), UInt8(word >> 8 & 0xFF), UInt8(word & 0xFF)]
        }
        for chunk in writer.finish() { body += [UInt8(chunk >> 8), UInt8(chunk & 0xFF)] }
        body += deltas
        while body.count % 4 != 0 { body.append(0) }
        let words = body.count / 4
        return [0x80 | 15, 205, UInt8(words >> 8), UInt8(words & 0xFF)] + body
    }

    /// The bytes of a feedback with `chunks` packet chunks and `deltaBytes` of receive deltas:
    /// 4 of RTCP header, 16 of fixed fields, then chunks and deltas padded to 32 bits.
    static func packetSize(chunks: Int, deltaBytes: Int) -> Int { (20 + 2 * chunks + deltaBytes + 3) / 4 * 4 }
}

extension TransportFeedback.PacketResult {
    /// The status symbol this result travels as (`PacketStatusChunkWriter`).
    var symbol: UInt8 {
        switch self {
        case .notReceived: PacketStatusChunkWriter.notReceived
        case .received(let delta): (0...255).contains(delta) ? PacketStatusChunkWriter.smallDelta : PacketStatusChunkWriter.largeDelta
        }
    }

    /// The bytes of its receive delta.
    var deltaBytes: Int {
        switch symbol {
        case PacketStatusChunkWriter.smallDelta: 1
        case PacketStatusChunkWriter.largeDelta: 2
        default: 0
        }
    }
}
