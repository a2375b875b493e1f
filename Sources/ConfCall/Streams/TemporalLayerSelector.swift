import ConfWire

/// Which frames of our one layered VP8 stream one link gets: encode once, and each link takes the
/// temporal layers it can carry (RFC 7741 section 4.2; DESIGN.md "Adapting to each link"). Pure,
/// one per link, asked frame by frame in encoding order.
///
/// Layers are cumulative: a link at layer n gets every frame of layers 0...n. Going down takes
/// effect at once (a frame of a layer above references only frames of its own layer and below, so
/// leaving it out breaks nothing the link keeps). Going up waits for a frame the link can decode
/// with what it has: a key frame (then straight to `maximumLayer`, every buffer holds the key
/// frame), or a layer-sync frame (Y=1: it references only the base layer) of the next layer up,
/// one layer at a time, because a non-sync frame of layer n+1 may reference layer-n frames the
/// link did not get.
///
///                      maximumLayer lowered
///        +-----------+ ---------------------> +-------------+
///        | current n |                        | current m<n |
///        +-----------+ <--------------------- +-------------+
///                key frame, or sync frame of m+1 (one step each)
///
/// Frames left out are simply not packetised for the link: its RTP sequence numbers stay
/// contiguous (each link's `OutboundRTPStream` numbers its own packets), so the receiver sees no
/// loss; its picture ids must be made contiguous too (`VP8PictureIDRewriter`).
public struct TemporalLayerSelector: Sendable {
    /// The highest layer the link may receive now: the congestion estimate's say.
    public var maximumLayer: UInt8
    /// The highest layer the link is receiving now: never above `maximumLayer`.
    public private(set) var currentLayer: UInt8

    /// A new link starts at the base layer and climbs at the first key frame or sync frames.
    public init(maximumLayer: UInt8 = 2) {
        self.maximumLayer = maximumLayer
        currentLayer = 0
    }

    /// Whether the link gets this frame; moves `currentLayer` towards `maximumLayer` as the
    /// stream allows.
    public mutating func forward(_ frame: VP8FrameLayer) -> Bool {
        if currentLayer > maximumLayer { currentLayer = maximumLayer }
        if frame.keyFrame {
            // Every link gets every key frame: the base layer, and a fresh start for all layers.
            currentLayer = maximumLayer
            return true
        }
        if frame.temporalLayer <= currentLayer { return true }
        if frame.layerSync, frame.temporalLayer == currentLayer &+ 1, frame.temporalLayer <= maximumLayer {
            currentLayer = frame.temporalLayer
            return true
        }
        return false
    }

    /// The highest layer whose cumulative rate fits `linkKbps` when the encoder makes
    /// `encoderKbps` in `layers` layers (`VP8FrameLayer.cumulativeSharePercent`); the base layer
    /// when nothing fits, since a link without even that gets no video at all.
    public static func highestLayer(fittingLinkKbps linkKbps: Int, encoderKbps: Int, layers: Int) -> UInt8 {
        let shares = VP8FrameLayer.cumulativeSharePercent(layers: layers)
        let fitting = shares.lastIndex { encoderKbps * $0 / 100 <= linkKbps } ?? 0
        return UInt8(fitting)
    }
}
