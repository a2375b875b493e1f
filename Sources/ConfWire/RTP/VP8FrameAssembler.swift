import ConfCore

/// Reassembles VP8 frames from RTP packets that may arrive out of order, duplicated or late.
/// A frame is complete when its first packet (S=1, PID=0), its last (marker) and every sequence
/// number between have arrived. Frames come out in order: a complete frame waits behind a gap for
/// up to `patience` (time for a NACKed packet to be sent again), then the gap's frame is given up
/// and counted in `droppedFrames` (the receiver should then ask for a key frame). Pure.
public struct VP8FrameAssembler: Sendable {
    public struct Frame: Equatable, Sendable {
        public var timestamp: UInt32
        public var data: [UInt8]
        public var isKeyFrame: Bool
    }

    public static let minimumPatience: Duration = .milliseconds(150)
    public var patience = Self.minimumPatience
    private var unwrapper = SequenceUnwrapper()
    /// Packets by extended sequence number: (timestamp, start of frame, marker, VP8 data).
    private var packets: [UInt64: (timestamp: UInt32, start: Bool, marker: Bool, data: [UInt8])] = [:]
    private var lastDelivered: UInt64?
    /// When the oldest complete frame started waiting behind a gap.
    private var waitingSince: (end: UInt64, at: Instant)?
    /// Frames given up on because a packet never came: the receiver should ask for a key frame.
    public private(set) var droppedFrames = 0

    public init() {}

    /// Takes one RTP packet's payload; returns the frames now ready, oldest first.
    public mutating func insert(sequence: SequenceNumber, timestamp: UInt32, marker: Bool, payload: [UInt8], now: Instant = .zero) -> [Frame] {
        guard let (descriptor, offset) = VP8PayloadDescriptor.parse(payload) else { return [] }
        let extended = unwrapper.unwrap(sequence)
        if let lastDelivered, extended <= lastDelivered { return [] }
        packets[extended] = (timestamp, descriptor.startOfPartition && descriptor.partitionIndex == 0, marker, Array(payload[offset...]))
        if packets.count > 2_000 { packets.removeAll() }  // nothing completes: start over
        return assemble(now: now)
    }

    /// The complete frame with the lowest sequence numbers: (first, last) sequence.
    private func oldestCompleteFrame() -> (start: UInt64, end: UInt64)? {
        for end in packets.filter({ $0.value.marker }).keys.sorted() {
            guard let endPacket = packets[end] else { continue }
            var start = end
            while let packet = packets[start], packet.timestamp == endPacket.timestamp, !packet.start {
                guard start > 0 else { break }
                start -= 1
            }
            if let first = packets[start], first.start, first.timestamp == endPacket.timestamp { return (start, end) }
        }
        return nil
    }

    private mutating func assemble(now: Instant) -> [Frame] {
        var frames: [Frame] = []
        while let (start, end) = oldestCompleteFrame() {
            if let lastDelivered, start > lastDelivered + 1 {
                // A gap before it: wait for retransmissions, but not for ever.
                if waitingSince?.end != end { waitingSince = (end, now) }
                guard now.since(waitingSince!.at) >= patience else { break }
                droppedFrames += 1
            }
            waitingSince = nil
            var data: [UInt8] = []
            for s in start...end { data += packets[s]!.data }
            let timestamp = packets[end]!.timestamp
            for key in packets.keys where key <= end { packets[key] = nil }
            lastDelivered = end
            frames.append(Frame(timestamp: timestamp, data: data, isKeyFrame: (data.first ?? 1) & 0x01 == 0))
        }
        return frames
    }
}
