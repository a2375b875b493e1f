import ConfCall
import ConfCore
import ConfWire
import Testing

/// Long Opus packets on a link too weak for video, on the simulated network: ann's link to bob is
/// capped (her video to him pauses), her link to cat is not; one encoder's 20 ms frames reach bob
/// three to a packet and cat one each.
extension CallEngineCongestionTests {
    @Test func aLinkTooWeakForVideoGetsSixtyMillisecondAudioPacketsAndTheOthersTwenty() throws {
        let (call, people) = try mesh(["ann", "bob", "cat"], seed: 41)
        let ann = people[0], bob = people[1], cat = people[2]
        cap(call, from: ann, to: bob, bitsPerSecond: 120_000)
        call.run(for: .seconds(8))
        let frames = (bob.receivedAudioFrames[ann.id, default: 0], cat.receivedAudioFrames[ann.id, default: 0])
        let continuations = (bob.receivedAudioContinuations[ann.id, default: 0], cat.receivedAudioContinuations[ann.id, default: 0])
        call.run(for: .seconds(4))
        let toBob = try #require(linkStats(ann, for: bob).last), toCat = try #require(linkStats(ann, for: cat).last)
        #expect(toBob.videoLayers == 0 && toBob.audioPacketMilliseconds == 60, "\(toBob)")
        #expect(toCat.videoLayers > 0 && toCat.audioPacketMilliseconds == 20, "\(toCat)")
        // In the last 4 s: 200 frames each, bob's two in three continuations of a packet.
        let bobFrames = bob.receivedAudioFrames[ann.id, default: 0] - frames.0
        let bobContinuations = bob.receivedAudioContinuations[ann.id, default: 0] - continuations.0
        #expect(bobFrames >= 180, "bob still hears ann: \(bobFrames) frames in 4 s")
        #expect(Double(bobContinuations) >= 0.6 * Double(bobFrames), "\(bobContinuations) of \(bobFrames) frames came after another in a packet")
        #expect(cat.receivedAudioContinuations[ann.id, default: 0] == continuations.1, "cat gets 20 ms packets")
        #expect(cat.receivedAudioFrames[ann.id, default: 0] - frames.1 >= 190)
    }
}
