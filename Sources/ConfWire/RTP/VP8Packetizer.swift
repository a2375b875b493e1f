/// Cuts encoded VP8 frames into RTP payloads of at most `maximumPayload` bytes (RFC 7741), each
/// starting with a descriptor that carries a 15-bit picture id (one per frame, +1 a frame, modulo
/// 2^15) and, for a layered stream, TL0PICIDX (+1 on each base-layer frame, modulo 256), TID/Y and
/// KEYIDX (+1 on each key frame, modulo 32).
public struct VP8Packetizer: Sendable {
    public let maximumPayload: Int
    private var pictureID: UInt16
    /// The TL0PICIDX the next base-layer frame gets.
    private var nextTL0PictureIndex: UInt8
    /// The KEYIDX the next key frame gets.
    private var nextKeyIndex: UInt8

    public init(maximumPayload: Int = 1100, firstPictureID: UInt16 = 0, firstTL0PictureIndex: UInt8 = 0, firstKeyIndex: UInt8 = 0) {
        self.maximumPayload = max(16, maximumPayload)
        pictureID = firstPictureID & 0x7FFF
        nextTL0PictureIndex = firstTL0PictureIndex
        nextKeyIndex = firstKeyIndex & 0x1F
    }

    /// The payloads of one frame of a stream without layers (X, I and M only), in order; the RTP
    /// marker goes on the last.
    public mutating func packetize(_ frame: [UInt8]) -> [[UInt8]] {
        defer { pictureID = (pictureID + 1) & 0x7FFF }
        return split(frame, VP8PayloadDescriptor(startOfPartition: true, pictureID: pictureID))
    }

    /// The payloads of one frame of a layered stream: every packet also carries L, T and K.
    public mutating func packetize(_ frame: [UInt8], layer: VP8FrameLayer) -> [[UInt8]] {
        defer { pictureID = (pictureID + 1) & 0x7FFF }
        if layer.temporalLayer == 0 { nextTL0PictureIndex &+= 1 }
        if layer.keyFrame { nextKeyIndex = (nextKeyIndex + 1) & 0x1F }
        // A higher layer's frame names the base frame before it: the last index handed out.
        let descriptor = VP8PayloadDescriptor(nonReference: layer.discardable, startOfPartition: true, pictureID: pictureID,
                                              tl0PictureIndex: nextTL0PictureIndex &- 1, temporalLayer: min(layer.temporalLayer, 3),
                                              layerSync: layer.layerSync, keyIndex: (nextKeyIndex &- 1) & 0x1F)
        return split(frame, descriptor)
    }

    /// `frame` cut to fit, each piece behind `first` (S=1 on the first piece only).
    private func split(_ frame: [UInt8], _ first: VP8PayloadDescriptor) -> [[UInt8]] {
        var descriptor = first
        let header = descriptor.bytes
        let room = maximumPayload - header.count
        var payloads: [[UInt8]] = []
        payloads.reserveCapacity(frame.count / room + 1)
        var offset = 0
        while offset < frame.count || payloads.isEmpty {
            let end = min(frame.count, offset + room)
            descriptor.startOfPartition = offset == 0
            payloads.append(descriptor.bytes + frame[offset..<end])
            offset = end
        }
        return payloads
    }
}
