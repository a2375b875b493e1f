/// Reading the descriptor from a packet that came from the network (RFC 7741 section 4.2; the
/// layout is drawn on `VP8PayloadDescriptor`).
extension VP8PayloadDescriptor {
    /// The descriptor and the offset of the VP8 data, or nil for a malformed descriptor (one that
    /// ends before its fields do, or leaves no VP8 data). Reserved bits are ignored, and so is an
    /// L without T (RFC 7741 wants T then; a TL0PICIDX alone is still read).
    public static func parse(_ payload: [UInt8]) -> (VP8PayloadDescriptor, Int)? {
        guard let first = payload.first else { return nil }
        var descriptor = VP8PayloadDescriptor(nonReference: first & 0x20 != 0, startOfPartition: first & 0x10 != 0,
                                              partitionIndex: first & 0x07, pictureID: nil)
        var offset = 1
        // The next byte, if the payload has one: every read goes through here.
        func next() -> UInt8? {
            guard offset < payload.count else { return nil }
            defer { offset += 1 }
            return payload[offset]
        }
        if first & 0x80 != 0 {
            guard let control = next() else { return nil }
            if control & 0x80 != 0 {  // I: |M| PictureID |, a second byte when M=1
                guard let high = next() else { return nil }
                if high & 0x80 != 0 {
                    guard let low = next() else { return nil }
                    descriptor.pictureID = UInt16(high & 0x7F) << 8 | UInt16(low)
                } else {
                    descriptor.pictureID = UInt16(high)
                }
            }
            if control & 0x40 != 0 {  // L: TL0PICIDX
                guard let index = next() else { return nil }
                descriptor.tl0PictureIndex = index
            }
            if control & 0x30 != 0 {  // T or K: |TID|Y| KEYIDX |
                guard let byte = next() else { return nil }
                if control & 0x20 != 0 {
                    descriptor.temporalLayer = byte >> 6
                    descriptor.layerSync = byte & 0x20 != 0
                }
                if control & 0x10 != 0 { descriptor.keyIndex = byte & 0x1F }
            }
        }
        guard offset < payload.count else { return nil }  // a descriptor with no data
        return (descriptor, offset)
    }
}
