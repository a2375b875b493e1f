import ConfCall
import ConfCore
import ConfWire
import Testing

/// The per-link layer selector against the 3-layer stream our encoder makes (a cycle of 8:
/// layers 0 2 1 2 0 2 1 2; the first layer-2 and layer-1 frames of each cycle are sync frames).
@Suite struct TemporalLayerSelectorTests {
    static func frame(_ n: Int, keyAt keys: Set<Int> = [0]) -> VP8FrameLayer {
        let layers: [UInt8] = [0, 2, 1, 2, 0, 2, 1, 2]
        if keys.contains(n) { return VP8FrameLayer(temporalLayer: 0, layerSync: true, keyFrame: true) }
        return VP8FrameLayer(temporalLayer: layers[n % 8], layerSync: n % 8 == 1 || n % 8 == 2)
    }

    /// The frames of 0..<count the selector forwards; `maximum(n)` is set before frame n.
    static func forwarded(_ count: Int, keys: Set<Int> = [0], maximum: (Int) -> UInt8) -> [Int] {
        var selector = TemporalLayerSelector(maximumLayer: maximum(0))
        return (0..<count).filter { n in
            selector.maximumLayer = maximum(n)
            return selector.forward(frame(n, keyAt: keys))
        }
    }

    @Test(arguments: [(2 as UInt8, 1), (1, 2), (0, 4)])
    func aSteadyMaximumGetsAFixedShareOfTheFrames(maximum: UInt8, every: Int) {
        #expect(Self.forwarded(32) { _ in maximum } == Array(stride(from: 0, to: 32, by: every)))
    }

    @Test func goingDownTakesEffectAtTheNextFrame() {
        let got = Self.forwarded(16) { $0 < 9 ? 2 : 0 }
        #expect(got == Array(0..<9) + [12])
    }

    @Test func goingUpWaitsForASyncFrameOfEachLayerInTurn() {
        // Joined mid-stream (no key frame) at the base layer; allowed all three from frame 3 on.
        let got = Self.forwarded(24, keys: []) { $0 < 3 ? 0 : 2 }
        // 9 is a layer-2 sync frame, but layer 1 is not taken yet: 10 (layer-1 sync) first, then
        // every other frame until 17, the next layer-2 sync.
        #expect(got == [0, 4, 8, 10, 12, 14, 16] + Array(17..<24))
    }

    @Test func aKeyFrameLiftsTheLinkToItsMaximumAtOnce() {
        let got = Self.forwarded(12, keys: [5]) { _ in 2 }
        // Frame 2 (layer-1 sync) lifts it to 1; from the key frame on, everything, sync or not.
        #expect(got == [0, 2, 4] + Array(5..<12))
        var selector = TemporalLayerSelector(maximumLayer: 2)
        selector.maximumLayer = 0
        #expect(selector.forward(Self.frame(0)) && selector.currentLayer == 0)  // key frames always, at the maximum
    }

    /// Whatever the maximum does, every frame a link gets references only frames it got. The
    /// references are modelled from the pattern (RFC 6386 buffers): layer 0 predicts from `last`
    /// and refreshes it; layer 1 refreshes `golden`; layer 1 and 2 frames predict from `last`,
    /// and from `golden` too unless they are sync frames; a key frame refreshes both.
    @Test func aLinkNeverGetsAFrameWhoseReferencesItMissed() {
        var random = SeededRandom(seed: 11)
        var selector = TemporalLayerSelector(maximumLayer: 2)
        var last = -1, golden = -1
        var got: Set<Int> = []
        var climbed = 0
        for n in 0..<4_000 {
            // At random frames, not cycle starts: a cycle's sync frames come first in it.
            if random.next() % 9 == 0 { selector.maximumLayer = UInt8(random.next() % 3) }
            let keys: Set<Int> = n % 500 == 0 ? [n] : []
            let frame = Self.frame(n, keyAt: keys)
            let references = frame.keyFrame ? [] : frame.temporalLayer == 0 || frame.layerSync ? [last] : [last, golden]
            let before = selector.currentLayer
            if selector.forward(frame) {
                #expect(references.allSatisfy { got.contains($0) }, "frame \(n) references \(references)")
                #expect(frame.temporalLayer <= selector.maximumLayer || frame.keyFrame)
                got.insert(n)
            }
            if selector.currentLayer > before { climbed += 1 }
            if frame.keyFrame { (last, golden) = (n, n) } else if frame.temporalLayer == 0 { last = n } else if frame.temporalLayer == 1 { golden = n }
        }
        #expect(climbed > 50)  // it does go up, not only down
    }

    /// 3 layers of a 1000 kbps stream are 400, 600 and 1000 kbps cumulative (40/20/40).
    @Test func aLinkGetsTheHighestLayerItsEstimateCarries() {
        let fits = [100, 399, 400, 599, 600, 999, 1000, 5000].map { TemporalLayerSelector.highestLayer(fittingLinkKbps: $0, encoderKbps: 1000, layers: 3) }
        #expect(fits == [0, 0, 0, 0, 1, 1, 2, 2])
        #expect([599, 999, 1000].map { TemporalLayerSelector.highestLayer(fittingLinkKbps: $0, encoderKbps: 1000, layers: 2) } == [0, 0, 1])  // 600, 1000
        #expect(TemporalLayerSelector.highestLayer(fittingLinkKbps: 5000, encoderKbps: 1000, layers: 1) == 0)
    }
}
