/// The VP8 RTP payload descriptor (RFC 7741 section 4.2). conf writes X=1, I=1, M=1 (a 15-bit
/// picture id, always at bytes 2-3) and, for a layered stream, L, T and K with their fields; it
/// reads every field, with a 7- or 15-bit picture id.
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
/// frame (RFC 7741 section 4.3). TL0PICIDX counts the base-layer (TID 0) frames, modulo 256; a
/// frame of a higher layer carries the TL0PICIDX of the base frame it depends on. TID is the
/// temporal layer (2 bits), Y says the frame references only the base layer (a receiver may start
/// decoding that layer here), KEYIDX counts key frames modulo 32. The byte holding TID/Y/KEYIDX is
/// present when T or K is set; TID and Y mean nothing when T=0, KEYIDX nothing when K=0.
public struct VP8PayloadDescriptor: Equatable, Sendable {
    public var nonReference: Bool
    public var startOfPartition: Bool
    public var partitionIndex: UInt8
    public var pictureID: UInt16?
    /// TL0PICIDX, when L=1.
    public var tl0PictureIndex: UInt8?
    /// TID (0...3), when T=1.
    public var temporalLayer: UInt8?
    /// Y: meaningful only with `temporalLayer`.
    public var layerSync: Bool
    /// KEYIDX (0...31), when K=1.
    public var keyIndex: UInt8?

    public init(nonReference: Bool = false, startOfPartition: Bool, partitionIndex: UInt8 = 0, pictureID: UInt16?,
                tl0PictureIndex: UInt8? = nil, temporalLayer: UInt8? = nil, layerSync: Bool = false, keyIndex: UInt8? = nil) {
        self.nonReference = nonReference
        self.startOfPartition = startOfPartition
        self.partitionIndex = partitionIndex
        self.pictureID = pictureID
        self.tl0PictureIndex = tl0PictureIndex
        self.temporalLayer = temporalLayer
        self.layerSync = layerSync
        self.keyIndex = keyIndex
    }

    /// Where the 15-bit picture id sits in `bytes` (X=1, I=1, M=1): what a per-link rewrite patches.
    public static let pictureIDOffset = 2

    public var bytes: [UInt8] {
        var first: UInt8 = (nonReference ? 0x20 : 0) | (startOfPartition ? 0x10 : 0) | (partitionIndex & 0x07)
        var control: UInt8 = 0
        var fields: [UInt8] = []
        if let pictureID {
            control |= 0x80
            fields += [0x80 | UInt8(pictureID >> 8 & 0x7F), UInt8(pictureID & 0xFF)]
        }
        if let tl0PictureIndex {
            control |= 0x40
            fields.append(tl0PictureIndex)
        }
        if temporalLayer != nil || keyIndex != nil {
            if temporalLayer != nil { control |= 0x20 }
            if keyIndex != nil { control |= 0x10 }
            let tid = (temporalLayer ?? 0) & 0x03
            fields.append(tid << 6 | (layerSync && temporalLayer != nil ? 0x20 : 0) | (keyIndex ?? 0) & 0x1F)
        }
        guard control != 0 else { return [first] }
        first |= 0x80
        return [first, control] + fields
    }
}
