/// Grows one `TransportFeedback` packet by packet while it stays within a size, so that a
/// receiver can split what it has to report into messages that fit a datagram. The size it
/// counts is exactly that of `feedback.bytes`: it packs the status chunks as the serializer does.
public struct TransportFeedbackBuilder: Sendable {
    public private(set) var feedback: TransportFeedback
    /// The most bytes `feedback.bytes` may take, header and padding included. One packet is always
    /// taken, whatever the limit.
    public let maximumBytes: Int
    private var writer = PacketStatusChunkWriter()
    private var deltaBytes = 0

    public init(senderSSRC: SSRC, mediaSSRC: SSRC, baseSequence: SequenceNumber, referenceTime: Int32, feedbackPacketCount: UInt8,
                maximumBytes: Int = 1200) {
        feedback = TransportFeedback(senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, baseSequence: baseSequence, referenceTime: referenceTime,
                                     feedbackPacketCount: feedbackPacketCount, packets: [])
        self.maximumBytes = maximumBytes
    }

    /// The size of `feedback.bytes`.
    public var byteCount: Int { TransportFeedback.packetSize(chunks: writer.chunkCount, deltaBytes: deltaBytes) }

    /// Adds the result of the next sequence number; false, adding nothing, when it would take the
    /// feedback over `maximumBytes` or over `TransportFeedback.maximumPacketCount` packets.
    public mutating func append(_ result: TransportFeedback.PacketResult) -> Bool {
        guard feedback.packets.count < TransportFeedback.maximumPacketCount else { return false }
        let size = TransportFeedback.packetSize(chunks: writer.chunkCount(adding: result.symbol), deltaBytes: deltaBytes + result.deltaBytes)
        guard size <= maximumBytes || feedback.packets.isEmpty else { return false }
        writer.add(result.symbol)
        deltaBytes += result.deltaBytes
        feedback.packets.append(result)
        return true
    }
}
