import ConfCall
import ConfCore
import ConfWire
import Testing

/// A link that carries the audio and little or no video, for a minute: video does not flap
/// between paused and sending (the seeded run: a pause, a try, a pause again).
extension CallEngineCongestionTests {
    @Test func aLinkTooWeakForVideoDoesNotFlap() throws {
        let (call, people) = try mesh(["ann", "bob"], seed: 41)
        let ann = people[0], bob = people[1]
        cap(call, from: ann, to: bob, bitsPerSecond: 64_000)
        let start = call.now
        call.run(for: .seconds(60))
        let changes = ann.events.filter {
            if case .videoPaused = $0.event { true } else if case .videoResumed = $0.event { true } else { false }
        }
        let resumes = changes.filter { if case .videoResumed = $0.event { true } else { false } }
        let seconds = changes.map { change in Int(change.at.since(start).milliseconds / 1_000) }
        #expect(changes.contains { if case .videoPaused = $0.event { true } else { false } }, "the link is too weak: video paused")
        #expect(resumes.count <= 2, "video paused and resumed at these seconds: \(seconds)")
    }

    /// The encoder stops while the only link is paused (`.videoWanted`), and starts again on
    /// resume, from a key frame; it is never stopped before.
    @Test func theEncoderStopsWhileTheOnlyLinkIsPaused() throws {
        let (call, people) = try mesh(["ann", "bob"], seed: 33)
        let ann = people[0], bob = people[1]
        #expect(ann.videoWantedSaid.isEmpty, "on from the start: \(ann.videoWantedSaid)")
        cap(call, from: ann, to: bob, bitsPerSecond: 40_000)
        #expect(call.run(for: .seconds(15)) { ann.engine.videoLayers(bob.id) == 0 })
        call.run(for: .milliseconds(100))
        #expect(ann.videoWantedSaid.map(\.wanted) == [false])
        let made = try #require(ann.layeredVideo).framesMade
        call.run(for: .seconds(5))
        #expect(try #require(ann.layeredVideo).framesMade == made, "nothing encoded while the only link is paused")
        cap(call, from: ann, to: bob, bitsPerSecond: nil)
        #expect(call.run(for: .seconds(30)) { ann.videoWantedSaid.last?.wanted == true })
        let resumedAt = try #require(ann.videoWantedSaid.last?.at)
        let videoBefore = bob.videoFrames[ann.id, default: 0]
        #expect(call.run(for: .seconds(3)) { bob.videoFrames[ann.id, default: 0] > videoBefore + 10 }, "video again after \(resumedAt)")
        #expect(ann.videoWantedSaid.map(\.wanted) == [false, true])
        #expect(ann.keyFramesOnWanted == 1, "a key frame when the encoder started again")
    }
}
