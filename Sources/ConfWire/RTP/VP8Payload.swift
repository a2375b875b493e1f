import ConfCore

/// The VP8 RTP payload descriptor (RFC 7741 section 4.2). conf writes X=1, I=1, M=1 (a 15-bit
/// picture id) and no TL0PICIDX/TID/KEYIDX; it reads all of them.
///
///          0 1 2 3 4 5 6 7
///         +-+-+-+-+-+-+-+-+
///         |X|R|N|S|R| PID | (REQUIRED)
///         +-+-+-+-+-+-+-+-+
///    X:   |I|L|T|K| RSV   | (OPTIONAL)
///         +-+-+-+-+-+-+-+-+
///    I:   |M| PictureID   | (OPTIONAL)
///         +-+-+-+-+-+-+-+-+
///    M:   |   PictureID   | (second byte when M=1)
///         +-+-+-+-+-+-+-+-+
///    L:   |   TL0PICIDX   | (OPTIONAL)
///         +-+-+-+-+-+-+-+-+
///    T/K: |TID|Y| KEYIDX  | (OPTIONAL)
///         +-+-+-+-+-+-+-+-+
///
/// S marks the first packet of a partition; PID the partition. A frame starts at S=1, PID=0; its
/// first byte after the descriptor is the VP8 payload header, whose lowest bit P is 0 for a key
/// frame (RFC 7741 section 4.3).
public struct VP8PayloadDescriptor: Equatable, Sendable {
    public var nonReference: Bool
    public var startOfPartition: Bool
    public var partitionIndex: UInt8
    public var pictureID: UInt16?

    public init(nonReference: Bool = false, startOfPartition: Bool, partitionIndex: UInt8 = 0, pictureID: UInt16?) {
        self.nonReference = nonReference
        self.startOfPartition = startOfPartition
        self.partitionIndex = partitionIndex
        self.pictureID = pictureID
    }

    public var bytes: [UInt8] {
        var first: UInt8 = (nonReference ? 0x20 : 0) | (startOfPartition ? 0x10 : 0) | (partitionIndex & 0x07)
        guard let pictureID else { return [first] }
        first |= 0x80
        return [first, 0x80, 0x80 | UInt8(pictureID >> 8 & 0x7F), UInt8(pictureID & 0xFF)]
    }

    /// The descriptor and the offset of the VP8 data, or nil for a malformed descriptor.
    public static func parse(_ payload: [UInt8]) -> (VP8PayloadDescriptor, Int)? {
        guard let first = payload.first else { return nil }
        var offset = 1
        var pictureID: UInt16?
        if first & 0x80 != 0 {
            guard payload.count > offset else { return nil }
            let x = payload[offset]
            offset += 1
            if x & 0x80 != 0 {  // I
                guard payload.count > offset else { return nil }
                if payload[offset] & 0x80 != 0 {
                    guard payload.count > offset + 1 else { return nil }
                    pictureID = UInt16(payload[offset] & 0x7F) << 8 | UInt16(payload[offset + 1])
                    offset += 2
                } else {
                    pictureID = UInt16(payload[offset] & 0x7F)
                    offset += 1
                }
            }
            if x & 0x40 != 0 { offset += 1 }  // L: TL0PICIDX
            if x & 0x30 != 0 { offset += 1 }  // T or K: TID/Y/KEYIDX
        }
        guard offset < payload.count else { return nil }  // a descriptor with no data
        return (VP8PayloadDescriptor(nonReference: first & 0x20 != 0, startOfPartition: first & 0x10 != 0,
                                     partitionIndex: first & 0x07, pictureID: pictureID), offset)
    }
}

/// Cuts encoded VP8 frames into RTP payloads of at most `maximumPayload` bytes (RFC 7741).
public struct VP8Packetizer: Sendable {
    public let maximumPayload: Int
    private var pictureID: UInt16

    public init(maximumPayload: Int = 1100, firstPictureID: UInt16 = 0) {
        self.maximumPayload = max(16, maximumPayload)
        pictureID = firstPictureID & 0x7FFF
    }

    /// The payloads of one frame, in order; the RTP marker goes on the last.
    public mutating func packetize(_ frame: [UInt8]) -> [[UInt8]] {
        defer { pictureID = (pictureID + 1) & 0x7FFF }
        var payloads: [[UInt8]] = []
        var offset = 0
        let room = maximumPayload - 4
        while offset < frame.count || payloads.isEmpty {
            let end = min(frame.count, offset + room)
            let descriptor = VP8PayloadDescriptor(startOfPartition: offset == 0, pictureID: pictureID)
            payloads.append(descriptor.bytes + frame[offset..<end])
            offset = end
        }
        return payloads
    }
}

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

    public var patience: Duration = .milliseconds(150)
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
