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
        #expect(resumes.count <= 2, "video paused and resumed at these seconds: \(seconds)")
    }
}
