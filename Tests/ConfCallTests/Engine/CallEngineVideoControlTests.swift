import ConfCall
import ConfCore
import ConfWire
import Testing

/// `camera off` / `camera on` and `hide` / `show` on the simulated network: what stops, who is
/// told, and that video comes back from a key frame.
@Suite struct CallEngineVideoControlTests {
    /// Everyone connected, sending audio and layered video, for 2 s.
    private func call(_ names: [String], seed: UInt64) throws -> (SimulatedCall, [SimulatedCall.Participant]) {
        let (call, people) = try SimulatedCall.connectedMesh(names, seed: seed, media: .audioAndVideo(kbps: 600))
        call.run(for: .seconds(2))
        return (call, people)
    }

    private func has(_ who: SimulatedCall.Participant, _ match: (CallEvent) -> Bool) -> Bool { who.events.contains { match($0.event) } }

    @Test func cameraOffStopsOurVideoAndTellsThePeerAndOnStartsItAtAKeyFrame() throws {
        let (call, people) = try call(["ann", "bob"], seed: 41)
        let (ann, bob) = (people[0], people[1])
        #expect(bob.videoFrames[ann.id, default: 0] > 10)
        #expect(ann.engine.handle(.setVideoMuted(true), now: call.now) == nil)
        call.step(ann)
        #expect(has(ann) { $0 == .camera(on: false) })
        #expect(call.run(for: .seconds(1)) { has(bob) { if case .peerVideoMuted(let who) = $0 { who.id == ann.id } else { false } } })
        #expect(bob.engine.marks(of: ann.id) == .init(cameraOff: true), "a view shows a badge, not the last picture")
        #expect(bob.engine.marks(of: ann.id).badges == ["camera off"])
        let framesAtOff = bob.videoFrames[ann.id, default: 0], audioAtOff = bob.receivedAudioFrames[ann.id, default: 0]
        call.run(for: .seconds(3))
        #expect(bob.videoFrames[ann.id, default: 0] <= framesAtOff + 2, "no video while the camera is off (what was on its way may land)")
        #expect(bob.receivedAudioFrames[ann.id, default: 0] > audioAtOff + 120, "audio goes on")
        #expect(ann.videoFrames[bob.id, default: 0] > 40, "bob's video still comes to ann")
        #expect(!has(bob) { if case .peerMuted = $0 { true } else { false } }, "the microphone did not change")

        let requestsBefore = ann.keyFrameRequests
        ann.engine.handle(.setVideoMuted(false), now: call.now)
        call.step(ann)
        #expect(ann.keyFrameRequests > requestsBefore, "on again from a key frame")
        #expect(call.run(for: .seconds(1)) { has(bob) { if case .peerVideoUnmuted(let who) = $0 { who.id == ann.id } else { false } } })
        let framesAtOn = bob.videoFrames[ann.id, default: 0]
        call.run(for: .seconds(1))
        #expect(bob.videoFrames[ann.id, default: 0] > framesAtOn + 10, "video flows again")
    }

    @Test func hidingAPeersVideoStopsItsSendingToUsOnly() throws {
        let (call, people) = try call(["ann", "bob", "cat"], seed: 42)
        let (ann, bob, cat) = (people[0], people[1], people[2])
        #expect(bob.engine.handle(.setVideoHidden(ann.id, true), now: call.now) == nil)
        #expect(bob.engine.handle(.setVideoHidden(ParticipantID("p9"), true), now: call.now) == .notConnected(ParticipantID("p9")), "nobody by that id")
        call.step(bob)
        #expect(has(bob) { if case .peerVideoHidden(let who, true) = $0 { who.id == ann.id } else { false } })
        #expect(bob.engine.marks(of: ann.id) == .init(hidden: true))
        call.run(for: .seconds(1))
        let bobFromAnn = bob.videoFrames[ann.id, default: 0], catFromAnn = cat.videoFrames[ann.id, default: 0]
        let bobAudio = bob.receivedAudioFrames[ann.id, default: 0]
        call.run(for: .seconds(3))
        #expect(bob.videoFrames[ann.id, default: 0] == bobFromAnn, "ann sends bob no video")
        #expect(cat.videoFrames[ann.id, default: 0] > catFromAnn + 30, "cat still gets ann's video")
        #expect(bob.receivedAudioFrames[ann.id, default: 0] > bobAudio + 120, "and bob her audio")
        #expect(!has(ann) { if case .peerVideoHidden = $0 { true } else { false } }, "ann only stops sending")

        #expect(bob.engine.handle(.setVideoHidden(ann.id, false), now: call.now) == nil)
        call.step(bob)
        call.run(for: .seconds(1))
        #expect(bob.videoFrames[ann.id, default: 0] > bobFromAnn + 10, "shown again, from a key frame")
    }

    @Test func aListenerHasNoCameraToTurnOff() throws {
        let call = SimulatedCall(seed: 43, handshake: .fakeDTLS)
        let listener = try call.add("lou", role: .listener) { $0.sendsVideo = false }
        #expect(listener.engine.handle(.setVideoMuted(true), now: call.now) == .sendsNoVideo)
        #expect(listener.events.isEmpty)
    }
}
