@testable import ConfCall
import ConfCore
import ConfWire
import Testing

/// One link's share of our video, frame by frame: key frames after a wait, the old encoding kept
/// until the new one's key frame, a pause that sends nothing.
@Suite struct VideoForwardingTests {
    let start = Instant.zero + .seconds(10)
    static let key = VP8FrameLayer(keyFrame: true)
    static let base = VP8FrameLayer(temporalLayer: 0)
    static let top = VP8FrameLayer(temporalLayer: 2, layerSync: true)

    func sends(_ forwarding: inout VideoForwarding, _ frame: VP8FrameLayer, _ encoding: VideoEncoding) -> Bool {
        forwarding.forwards(frame, of: encoding)
    }

    func moves(_ forwarding: inout VideoForwarding, _ encoding: VideoEncoding, _ keepingTheOld: Bool) -> VideoForwarding.Move {
        forwarding.move(to: encoding, keepingTheOld: keepingTheOld)
    }

    /// A budget under what the full encoding needs, long enough for the link to choose the small one.
    func chooseSmall(_ forwarding: inout VideoForwarding) {
        _ = forwarding.chooseEncoding(budgetKbps: 100, fullNeedsKbps: 300, now: start)
        #expect(forwarding.chooseEncoding(budgetKbps: 100, fullNeedsKbps: 300, now: start + .seconds(1)) == .small)
    }

    /// A new link is sent from the base layer up; a wait (after a pause, the camera off) sends
    /// nothing until a key frame, then every layer the budget carries.
    @Test func afterAWaitOnlyAKeyFrameStartsTheVideoAgain() {
        var forwarding = VideoForwarding()
        #expect(sends(&forwarding, Self.base, .full))
        forwarding.waitForKeyFrame()
        #expect(!sends(&forwarding, Self.base, .full))
        #expect(!sends(&forwarding, Self.top, .full))
        #expect(sends(&forwarding, Self.key, .full))
        #expect(sends(&forwarding, Self.top, .full), "the key frame starts every layer")
        #expect(forwarding.forwardedLayers(encoded: 3) == 3)
    }

    /// Moving to the small encoding while keeping the full one: the full one's frames go on until
    /// the small one's first key frame, and from then on only the small one's.
    @Test func aMoveKeepsTheOldEncodingUntilTheNewOnesKeyFrame() {
        var forwarding = VideoForwarding()
        #expect(sends(&forwarding, Self.key, .full))
        chooseSmall(&forwarding)
        #expect(moves(&forwarding, .small, true) == .keepsTheOldMeanwhile)
        #expect(forwarding.encoding == .full && forwarding.chosenEncoding == .small)
        #expect(forwarding.mayGet(.full) && forwarding.mayGet(.small))
        #expect(sends(&forwarding, Self.base, .full), "still sent the full encoding")
        #expect(!sends(&forwarding, Self.base, .small), "not the small one's frames before its key frame")
        #expect(sends(&forwarding, Self.key, .small))
        #expect(!forwarding.mayGet(.full) && forwarding.encoding == .small)
    }

    /// Back to the encoding it had before the new one's key frame came: it simply stays, sent
    /// what it was sent, with no key frame to wait for.
    @Test func backBeforeTheKeyFrameItStays() {
        var forwarding = VideoForwarding()
        chooseSmall(&forwarding)
        #expect(moves(&forwarding, .small, false) == .startsAfresh)
        #expect(sends(&forwarding, Self.key, .small))
        _ = forwarding.chooseEncoding(budgetKbps: 1_000, fullNeedsKbps: 300, now: start + .seconds(2))
        #expect(forwarding.chooseEncoding(budgetKbps: 1_000, fullNeedsKbps: 300, now: start + .seconds(8)) == .full)
        #expect(moves(&forwarding, .full, true) == .keepsTheOldMeanwhile)
        _ = forwarding.chooseEncoding(budgetKbps: 100, fullNeedsKbps: 300, now: start + .seconds(9))
        #expect(forwarding.chooseEncoding(budgetKbps: 100, fullNeedsKbps: 300, now: start + .seconds(10)) == .small)
        #expect(moves(&forwarding, .small, true) == .backBeforeTheKeyFrame)
        #expect(forwarding.mayGet(.small) && !forwarding.mayGet(.full))
        #expect(sends(&forwarding, Self.base, .small), "no key frame to wait for")
    }

    /// Without keeping the old one (or while already waiting for a key frame), nothing goes until
    /// the new encoding's key frame, and the link starts from its base layer there.
    @Test func aMoveWithoutTheOldSendsNothingUntilTheKeyFrame() {
        var forwarding = VideoForwarding()
        forwarding.waitForKeyFrame()
        chooseSmall(&forwarding)
        #expect(moves(&forwarding, .small, true) == .startsAfresh, "nothing of the old one to keep while waiting")
        #expect(!sends(&forwarding, Self.base, .full) && !sends(&forwarding, Self.base, .small))
        #expect(sends(&forwarding, Self.key, .small))
    }

    /// A budget under the base layer for long enough pauses the link: no frame at all, key frames
    /// included, and 0 layers reported.
    @Test func aPausedLinkGetsNoFrame() {
        var forwarding = VideoForwarding()
        _ = forwarding.judge(budgetKbps: 600, encoderKbps: 600, layers: 3, now: start)
        var change: LinkLayerPolicy.Change?
        for step in 1...10 where change == nil {
            change = forwarding.judge(budgetKbps: 50, encoderKbps: 600, layers: 3, now: start + .milliseconds(200 * step))
        }
        #expect(change == .paused && forwarding.paused)
        #expect(!sends(&forwarding, Self.key, .full))
        #expect(forwarding.forwardedLayers(encoded: 3) == 0)
    }

    /// The budget's layers reach the selector: a budget for the two lower layers drops the top
    /// layer's frames.
    @Test func theBudgetsLayersReachTheSelector() {
        var forwarding = VideoForwarding()
        _ = forwarding.judge(budgetKbps: 400, encoderKbps: 600, layers: 3, now: start)
        #expect(sends(&forwarding, Self.key, .full))
        #expect(sends(&forwarding, Self.base, .full))
        #expect(!sends(&forwarding, Self.top, .full))
        #expect(forwarding.forwardedLayers(encoded: 3) == 2)
    }
}
