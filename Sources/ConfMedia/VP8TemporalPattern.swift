public import ConfWire

/// The temporal-layer pattern of conf's VP8 encoder: for each frame in a repeating cycle, its
/// layer, which of VP8's three reference buffers (RFC 6386 section 9.7: last, golden, altref) it
/// may predict from and which it refreshes, and the share of the bitrate each layer gets. Pure.
///
/// The shape is libwebrtc's "default temporal layers" and libvpx's vp8_scalable_patterns:
/// layer 0 predicts from and refreshes only `last`; layer 1 refreshes `golden`; layer 2 (of 3)
/// refreshes nothing. `altref` is never used between key frames. So `last` only ever holds a
/// base-layer frame or a key frame, and a frame that predicts from `last` alone is a layer-sync
/// frame (RFC 7741's Y). With 3 layers, 30 fps becomes 7.5 (layer 0), 15 (0-1), 30 (0-2):
///
///     frame:   0   1   2   3   4   5   6   7  | 8 ...
///     layer:   0   2   1   2   0   2   1   2  | 0
///     refs:    L   L   L   LG  L   LG  LG  LG |
///     updates: L   -   G   -   L   -   G   -  |
///     sync:        Y   Y                      |
///
/// Every frame above layer 0 also leaves the entropy context alone, so that a receiver without
/// it decodes the next frames with the same probabilities as the encoder.
public struct VP8TemporalPattern: Equatable, Sendable {
    public enum Buffer: Hashable, Sendable { case last, golden }

    public struct Slot: Equatable, Sendable {
        public var layer: UInt8
        public var references: Set<Buffer>
        public var updates: Set<Buffer>
        /// Predicts from the base layer only (`last`): a receiver may start this layer here.
        public var layerSync: Bool { layer > 0 && references == [.last] }
    }

    public let layers: Int
    /// One cycle of frames, repeated; a key frame starts it again.
    public let slots: [Slot]

    /// 1, 2 or 3 layers; nil for any other count.
    public init?(layers: Int) {
        self.layers = layers
        func slot(_ layer: UInt8, _ references: Set<Buffer>, _ updates: Set<Buffer>) -> Slot {
            Slot(layer: layer, references: references, updates: updates)
        }
        switch layers {
        case 1: slots = [slot(0, [.last, .golden], [.last])]  // not applied: with one layer libvpx chooses
        case 2: slots = [slot(0, [.last], [.last]), slot(1, [.last], [.golden]), slot(0, [.last], [.last]), slot(1, [.last, .golden], [])]
        case 3:
            slots = [slot(0, [.last], [.last]), slot(2, [.last], []), slot(1, [.last], [.golden]), slot(2, [.last, .golden], []),
                     slot(0, [.last], [.last]), slot(2, [.last, .golden], []), slot(1, [.last, .golden], [.golden]),
                     slot(2, [.last, .golden], [])]
        default: return nil
        }
    }

    /// The layer ids of libvpx's `ts_layer_id` (one period of them) and the frame-rate divisor of
    /// each layer's cumulative stream (`ts_rate_decimator`: 4, 2, 1 for 3 layers).
    public var layerIDs: [UInt8] { Array(slots.prefix(layers == 3 ? 4 : layers).map(\.layer)) }
    public var rateDecimators: [Int] { (0..<layers).map { 1 << (layers - 1 - $0) } }

    /// Cumulative bitrate of layers 0...n in kbps for a total of `kbps` (libvpx's
    /// `ts_target_bitrate`), split as libwebrtc does: 60/40 for 2 layers, 40/20/40 for 3.
    public func cumulativeBitrates(totalKbps kbps: Int) -> [Int] {
        VP8FrameLayer.cumulativeSharePercent(layers: layers).map { max(1, kbps * $0 / 100) }
    }
}
