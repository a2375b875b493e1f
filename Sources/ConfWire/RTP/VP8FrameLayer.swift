/// Where one encoded VP8 frame sits in its temporal-layer pattern: what the encoder reports, the
/// packetiser writes (RFC 7741 section 4.2: TID, Y, N, TL0PICIDX, KEYIDX) and a per-link selector
/// decides on. A stream without layers has every frame at layer 0.
public struct VP8FrameLayer: Hashable, Sendable {
    /// TID: 0 is the base layer; a frame of layer n references only frames of layers 0...n.
    public var temporalLayer: UInt8
    /// Y: the frame references only base-layer frames (or nothing: a key frame), so a receiver
    /// that had only the layers below may start taking this layer here.
    public var layerSync: Bool
    /// A key frame (RFC 6386 section 9.1): references nothing, refreshes every buffer.
    public var keyFrame: Bool
    /// N: no later frame references this one (libvpx's VPX_FRAME_IS_DROPPABLE).
    public var discardable: Bool

    public init(temporalLayer: UInt8 = 0, layerSync: Bool = false, keyFrame: Bool = false, discardable: Bool = false) {
        self.temporalLayer = temporalLayer
        self.layerSync = layerSync
        self.keyFrame = keyFrame
        self.discardable = discardable
    }

    /// The share of the total bitrate that layers 0...n together get, in percent, for a stream of
    /// `layers` layers: libwebrtc's split, 60/40 for 2 layers and 40/20/40 for 3 (so 40, 60, 100
    /// cumulative). The encoder sets its per-layer targets from it; a link's layer choice reads it.
    public static func cumulativeSharePercent(layers: Int) -> [Int] {
        switch layers {
        case 2: [60, 100]
        case 3: [40, 60, 100]
        default: [100]
        }
    }
}
