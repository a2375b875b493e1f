/// One link's VP8 picture ids, for a link that is sent only some of the frames of a layered stream.
///
/// Why rewrite: libwebrtc's receiver (RtpVp8RefFinder) records every picture id it skipped over
/// as "not yet received" and holds back a non-sync frame of layer 1 or above while one of those
/// lies between it and the frame it references: with the shared picture ids, a link that gets
/// layers 0 and 1 but not 2 would see its layer-1 frames wait for layer-2 frames that never come.
/// SFUs (mediasoup, Janus) rewrite the picture id for that reason. So each link numbers the frames
/// it gets with no gaps, as it does its RTP sequence numbers. TL0PICIDX and KEYIDX need no
/// rewrite: every link gets every base-layer frame and every key frame, so they stay gapless.
public struct VP8PictureIDRewriter: Sendable {
    private var next: UInt16

    public init(firstPictureID: UInt16 = 0) { next = firstPictureID & 0x7FFF }

    /// The frame's payloads (as `VP8Packetizer` wrote them) with this link's next picture id; a
    /// payload whose descriptor has no 15-bit picture id at `VP8PayloadDescriptor.pictureIDOffset`
    /// is left as it is.
    public mutating func rewrite(_ payloads: [[UInt8]]) -> [[UInt8]] {
        defer { next = (next + 1) & 0x7FFF }
        let at = VP8PayloadDescriptor.pictureIDOffset
        return payloads.map { payload in
            // |X|...| then |I|...| then |M| PictureID high | low |
            guard payload.count > at + 1, payload[0] & 0x80 != 0, payload[1] & 0x80 != 0, payload[at] & 0x80 != 0 else { return payload }
            var rewritten = payload
            rewritten[at] = 0x80 | UInt8(next >> 8 & 0x7F)
            rewritten[at + 1] = UInt8(next & 0xFF)
            return rewritten
        }
    }
}
