@testable import ConfCall
import ConfCore
import ConfWire
import Testing

/// Our video shared out among the links: the encoders' targets from their budgets, moves to the
/// small encoding, each link's layers and pause.
@Suite struct VideoAllocatorTests {
    let start = Instant.zero + .seconds(10)
    let allocator = VideoAllocator(videoBitrateKbps: 1_000, minimumVideoKbps: 100, minimumSmallVideoKbps: 50, fullVideoFloorKbps: 300,
                                   smallVideo: true)

    func link(_ number: Int, _ budgetKbps: Int, sharing: Bool = false, settled: Bool = true) -> VideoAllocator.Recipient {
        VideoAllocator.Recipient(id: ParticipantID("p\(number)"), budgetKbps: budgetKbps, sharesUplink: sharing, settled: settled,
                            forwarding: VideoForwarding())
    }

    /// The full encoding follows the best link; links sharing our uplink count as one, at the
    /// least of their budgets (their difference is their resends).
    @Test func theEncoderFollowsTheBestLinkWithTheSharedUplinkAsOne() {
        #expect(allocator.encoderTargetKbps([link(1, 400), link(2, 700)]) == 700)
        #expect(allocator.encoderTargetKbps([link(1, 600, sharing: true), link(2, 700, sharing: true)]) == 600)
        #expect(allocator.encoderTargetKbps([link(1, 600, sharing: true), link(2, 700, sharing: true), link(3, 650)]) == 650)
    }

    /// Within `minimumVideoKbps` and `--video-bitrate`; with no link, `--video-bitrate`.
    @Test func theEncodersTargetStaysWithinItsBounds() {
        #expect(allocator.encoderTargetKbps([link(1, 20)]) == 100)
        #expect(allocator.encoderTargetKbps([link(1, 5_000)]) == 1_000)
        #expect(allocator.encoderTargetKbps([]) == 1_000)
    }

    /// A settled link under the full picture's floor moves to the small encoding once the choice's
    /// wait has passed, keeping the full one until the small one's key frame while its budget
    /// carries half the frame rate (240 of 400 kbit/s); the small encoding then gets a target
    /// from it.
    @Test func aWeakLinkMovesToTheSmallEncoding() {
        var links = [link(1, 900), link(2, 280)]
        let first = allocator.chooseEncodings(&links, encoderKbps: 400, layers: 3, now: start)
        #expect(first.isEmpty && allocator.smallTargetKbps(links, fullKbps: 400) == nil)
        let moves = allocator.chooseEncodings(&links, encoderKbps: 400, layers: 3, now: start + .seconds(1))
        #expect(moves == [VideoAllocator.Move(id: ParticipantID("p2"), encoding: .small, how: .keepsTheOldMeanwhile)])
        #expect(links[1].forwarding.chosenEncoding == .small && links[0].forwarding.chosenEncoding == .full)
        // The floor of 300 (over half of 400), at most the link's 280.
        #expect(allocator.smallTargetKbps(links, fullKbps: 400) == 280)
    }

    /// Under the half-rate layers the full picture would overrun the link until the small one
    /// came: it starts afresh on the small one instead of keeping the full one meanwhile.
    @Test func aLinkUnderHalfTheFrameRateDoesNotKeepTheFullEncoding() {
        var links = [link(1, 900), link(2, 200)]
        _ = allocator.chooseEncodings(&links, encoderKbps: 900, layers: 3, now: start)
        let moves = allocator.chooseEncodings(&links, encoderKbps: 900, layers: 3, now: start + .seconds(1))
        #expect(moves.map(\.how) == [.startsAfresh], "half the frame rate of 900 kbit/s takes 540")
    }

    /// Before its estimate settles a link is held only to half the frame rate, not the floor: a
    /// call's first seconds do not send every link to the small encoding.
    @Test func anUnsettledLinkIsNotHeldToTheFloor() {
        var links = [link(1, 900), link(2, 280, settled: false)]
        _ = allocator.chooseEncodings(&links, encoderKbps: 400, layers: 3, now: start)
        let unsettledMoves = allocator.chooseEncodings(&links, encoderKbps: 400, layers: 3, now: start + .seconds(1))
        #expect(unsettledMoves.isEmpty)
        var settled = [link(1, 900), link(2, 280)]
        _ = allocator.chooseEncodings(&settled, encoderKbps: 400, layers: 3, now: start)
        let settledMoves = allocator.chooseEncodings(&settled, encoderKbps: 400, layers: 3, now: start + .seconds(1))
        #expect(settledMoves.count == 1)
    }

    /// Without a small encoding nobody moves, and a link too weak for the base layer pauses.
    @Test func withoutASmallEncodingAWeakLinkPauses() {
        var plain = allocator
        plain.smallVideo = false
        var links = [link(1, 900), link(2, 60)]
        var paused: [ParticipantID] = []
        for step in 0..<10 {
            let now = start + .milliseconds(200 * step)
            let moves = plain.chooseEncodings(&links, encoderKbps: 900, layers: 3, now: now)
            #expect(moves.isEmpty)
            paused += plain.judgeLayers(&links, encoderKbps: 900, smallKbps: nil, layers: { _ in 3 }, now: now)
                .filter { $0.change == .paused }.map(\.id)
        }
        #expect(paused == [ParticipantID("p2")])
        #expect(!links[0].forwarding.paused && links[1].forwarding.paused)
    }

    /// A link on the small encoding is judged against the small one's rate: 120 kbit/s carries
    /// every layer of a 120 kbit/s small encoding, where against the full one's 900 it would pause.
    @Test func aLinkOnTheSmallEncodingIsJudgedAgainstItsRate() {
        var links = [link(1, 900), link(2, 120)]
        _ = allocator.chooseEncodings(&links, encoderKbps: 900, layers: 3, now: start)
        _ = allocator.chooseEncodings(&links, encoderKbps: 900, layers: 3, now: start + .seconds(1))
        var forwarding = links[1].forwarding
        let keyFrameSent = forwarding.forwards(VP8FrameLayer(keyFrame: true), of: .small)
        #expect(keyFrameSent)
        links[1].forwarding = forwarding
        var changes: [LinkLayerPolicy.Change] = []
        for step in 0..<10 {
            changes += allocator.judgeLayers(&links, encoderKbps: 900, smallKbps: 120, layers: { _ in 3 },
                                             now: start + .seconds(1) + .milliseconds(200 * step)).map(\.change)
        }
        #expect(changes.isEmpty && links[1].forwarding.forwardedLayers(encoded: 3) == 3)
    }
}
