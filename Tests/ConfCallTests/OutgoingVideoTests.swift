@testable import ConfCall
import ConfCore
import ConfWire
import Testing

/// Our video as the engine packetises it once for every link, and what its encoders are asked.
@Suite struct OutgoingVideoTests {
    let start = Instant.zero + .seconds(1)

    /// The media clock runs at 90 kHz from the first frame captured, and each encoding counts
    /// the temporal layers its own frames show.
    @Test func framesCarryTheirTimeAndLayersFromTheFirstCapture() {
        var video = OutgoingVideo()
        #expect(!video.hasStarted)
        let first = video.packetize([0x00, 1, 2], layer: VP8FrameLayer(keyFrame: true), encoding: .full, captured: start)
        let later = video.packetize([0x01, 1, 2], layer: VP8FrameLayer(temporalLayer: 2), encoding: .full,
                                    captured: start + .milliseconds(100))
        #expect(video.hasStarted && first.mediaTime == 0 && later.mediaTime == 9000)
        #expect(video.layers(of: .full) == 3 && video.layers(of: .small) == 1)
        #expect(!first.payloads.isEmpty && first.place.keyFrame && !later.place.keyFrame)
    }

    /// The key frame asked for links that came up is taken by the next full key frame; a small
    /// encoding's key frame does not answer it.
    @Test func aFullKeyFrameEndsTheWaitOfNewLinks() {
        var video = OutgoingVideo()
        video.newLinkKeyFrameDue = start
        video.askedNewLinkKeyFrame()
        #expect(video.newLinkKeyFrameAsked && video.newLinkKeyFrameDue == nil)
        _ = video.packetize([0x00], layer: VP8FrameLayer(keyFrame: true), encoding: .small, captured: start)
        #expect(video.newLinkKeyFrameAsked)
        _ = video.packetize([0x00], layer: VP8FrameLayer(keyFrame: true), encoding: .full, captured: start)
        #expect(!video.newLinkKeyFrameAsked)
    }

    /// A target goes to an encoder when it moved by more than 10 %, at most once a second, a
    /// sharp fall at once; the small encoder starts with its first target and stops once.
    @Test func encodersAreAskedWithHysteresis() {
        var video = OutgoingVideo()
        let asked = [video.askFull(500, now: start), video.askFull(600, now: start + .milliseconds(500)),
                     video.askFull(540, now: start + .seconds(2)), video.askFull(600, now: start + .seconds(2)),
                     video.askFull(400, now: start + .milliseconds(2100))]
        #expect(asked == [true, false, false, true, true], "the first; within the second; within 10 %; moved; a sharp fall at once")
        let small = [video.askSmall(nil, now: start), video.askSmall(120, now: start), video.askSmall(nil, now: start),
                     video.askSmall(nil, now: start)]
        #expect(small == [nil, .some(120), .some(nil), nil], "nothing to stop; started; stopped; stopped already")
        #expect(video.smallAsked == nil)
    }
}
