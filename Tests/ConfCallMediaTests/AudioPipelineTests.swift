import ConfCall
import ConfCallMedia
import ConfCore
import ConfMedia
import ConfWire
import Testing

/// A microphone that keeps its own time: frames are queued as the "device" captures them; it can
/// be unplugged.
final class FakeMicrophone: AudioSource {
    var captured: [[Int16]] = []
    var unplugged = false
    private(set) var isLost = false
    private(set) var closed = false

    func frames(now: Instant) -> [[Int16]] {
        if unplugged { isLost = true; return [] }
        defer { captured.removeAll() }
        return captured
    }

    func close() { closed = true }
}

/// A speaker that remembers what it played, and stops working for a peer on demand (once).
final class FakeSpeaker: AudioSink {
    var played: [(peer: ParticipantID, pcm: [Int16], at: Instant)] = []
    var failing: Set<ParticipantID> = []
    private var failed: Set<ParticipantID> = []
    var left: [ParticipantID] = []
    var closed = false

    func play(_ pcm: [Int16], from peer: Participant, at: Instant) -> MediaIssue? {
        guard !failed.contains(peer.id) else { return nil }
        if failing.contains(peer.id) {
            failed.insert(peer.id)
            return .speakerLost(peer)
        }
        played.append((peer.id, pcm, at))
        return nil
    }

    func peerLeft(_ id: ParticipantID) { left.append(id) }
    func close() { closed = true }
}

@Suite struct AudioPipelineTests {
    let ann = Participant(id: ParticipantID("p2"), name: "ann", role: .publisher)
    let bob = Participant(id: ParticipantID("p3"), name: "bob", role: .publisher)
    let tone = ToneGenerator(frequency: 440)

    @Test func aGeneratedSourceIsPacedAt20msOnTheManualClockAndCatchesUpAfterAStall() throws {
        let clock = ManualClock(Instant(nanoseconds: 1_000_000_000))
        let pipeline = AudioPipeline(source: PacedAudioSource(ToneGenerator(frequency: 440)), encoder: try OpusEncoder(bitrate: 32_000), sinks: [])
        var frames = 0
        for _ in 0..<200 {  // one second in 5 ms ticks
            frames += pipeline.frames(now: clock.now()).count
            clock.advance(by: .milliseconds(5))
        }
        #expect(frames == 50)
        clock.advance(by: .milliseconds(95))  // a stall: the missed frames come at once
        #expect(pipeline.frames(now: clock.now()).count == 5)
        let frame = try #require(pipeline.frames(now: clock.now() + .milliseconds(20)).first)
        #expect(frame.opus?.isEmpty == false)
        #expect(frame.level < 20)
        pipeline.muted = true
        let muted = try #require(pipeline.frames(now: clock.now() + .milliseconds(40)).first)
        #expect(muted.opus == nil, "nothing is encoded while muted")
        #expect(muted.level < 20, "its level is still measured (to say we talk into a muted microphone)")
    }

    @Test func aDeviceSourceSendsWhatItCapturedAndItsLossIsReportedOnceThenSilenceGoesOut() throws {
        let clock = ManualClock(.zero)
        let microphone = FakeMicrophone()
        let pipeline = AudioPipeline(source: microphone, encoder: try OpusEncoder(bitrate: 32_000), sinks: [])
        var issues: [MediaIssue] = []
        pipeline.onIssue = { issues.append($0) }
        #expect(pipeline.frames(now: clock.now()).isEmpty)  // the device has nothing yet: nothing is made up
        microphone.captured = [tone.nextFrame(), tone.nextFrame(), tone.nextFrame()]
        clock.advance(by: .milliseconds(5))
        let sent = pipeline.frames(now: clock.now())
        #expect(sent.count == 3)
        #expect(sent.allSatisfy { $0.level < 20 })

        microphone.unplugged = true
        clock.advance(by: .milliseconds(5))
        _ = pipeline.frames(now: clock.now())
        #expect(issues == [.microphoneLost])
        #expect(microphone.closed)
        var silent: [AudioPipeline.Frame] = []
        for _ in 0..<20 {
            clock.advance(by: .milliseconds(5))
            silent += pipeline.frames(now: clock.now())
        }
        #expect(issues == [.microphoneLost])  // once
        #expect((5...6).contains(silent.count))  // our clock paces the silence: 100 ms of it
        #expect(silent.allSatisfy { $0.level == 127 && $0.opus != nil })
    }

    @Test func aListenerOpensNoSource() {
        let microphone = FakeMicrophone()
        microphone.captured = [tone.nextFrame()]
        let pipeline = AudioPipeline(source: microphone, encoder: nil, sinks: [])
        #expect(pipeline.sends == false)
        #expect(pipeline.frames(now: .zero).isEmpty)
    }

    @Test func everySinkGetsEachPeersDecodedAudioAndASinkThatFailsIsReportedOnce() throws {
        let encoder = try OpusEncoder(bitrate: 32_000)
        let speaker = FakeSpeaker(), recorder = FakeSpeaker()
        let pipeline = AudioPipeline(source: nil, encoder: nil, sinks: [speaker, recorder])
        var issues: [MediaIssue] = []
        pipeline.onIssue = { issues.append($0) }
        var at = Instant(nanoseconds: 1_000_000)
        for _ in 0..<5 {
            let payload = try encoder.encode(tone.nextFrame())
            #expect(try #require(pipeline.play(.frame(payload), from: ann, muted: false, at: at)) < 40)
            _ = pipeline.play(.frame(payload), from: bob, muted: true, at: at)
            at = at + .milliseconds(20)
        }
        #expect(pipeline.play(.lost(next: nil), from: ann, muted: false, at: at) != nil)  // concealed
        #expect(speaker.played.count == 11 && recorder.played.count == 11)
        #expect(speaker.played.filter { $0.peer == bob.id }.allSatisfy { $0.pcm.allSatisfy { $0 == 0 } })  // muted here
        #expect(speaker.played.last?.at == at)

        speaker.failing = [ann.id]
        for _ in 0..<3 { _ = pipeline.play(.lost(next: nil), from: ann, muted: false, at: at) }
        #expect(issues == [.speakerLost(ann)])
        #expect(recorder.played.count == 14)  // the other sink goes on

        pipeline.peerLeft(ann.id)
        #expect(speaker.left == [ann.id] && recorder.left == [ann.id])
        pipeline.close()
        #expect(speaker.closed && recorder.closed)
    }
}

/// A speaker that keeps what it was given, by participant.
final class KeepingSink: AudioSink {
    var frames: [(peer: Participant, pcm: [Int16], at: Instant)] = []
    func play(_ pcm: [Int16], from peer: Participant, at: Instant) -> MediaIssue? {
        frames.append((peer, pcm, at))
        return nil
    }
    func peerLeft(_ id: ParticipantID) {}
    func close() {}
}

@Suite struct LocalSoundsTests {
    let ann = Participant(id: ParticipantID("p2"), name: "ann", role: .publisher)

    /// A join plays the join sound on the speaker, as its own participant, 20 ms a frame in real time.
    @Test func aJoinPlaysItsSoundFrameByFrame() {
        let speaker = KeepingSink()
        let sounds = LocalSounds(speaker: speaker)
        let clock = ManualClock(Instant(nanoseconds: 1_000_000_000))
        sounds.react(to: .peerMuted(ann, audio: true, video: false), now: clock.now())
        #expect(sounds.nextFrameDue == nil, "no sound for that")
        sounds.react(to: .peerJoined(ann), now: clock.now())
        let expected = (CallSound.joined.samples.count + 959) / 960
        for _ in 0..<100 {
            sounds.tick(now: clock.now())
            clock.advance(by: .milliseconds(5))
        }
        #expect(speaker.frames.count == expected)
        #expect(speaker.frames.allSatisfy { $0.peer.id == LocalSounds.participant.id && $0.pcm.count == 960 })
        #expect(zip(speaker.frames, speaker.frames.dropFirst()).allSatisfy { $1.at.since($0.at) == .milliseconds(20) })
        #expect(Array(speaker.frames.flatMap(\.pcm).prefix(CallSound.joined.samples.count)) == CallSound.joined.samples)
        #expect(sounds.nextFrameDue == nil, "done")
    }

    /// Ten people arriving at once make a second or so of sound, not ten sounds in a row.
    @Test func aBurstOfEventsIsBounded() {
        let speaker = KeepingSink()
        let sounds = LocalSounds(speaker: speaker)
        let now = Instant(nanoseconds: 1_000_000_000)
        for _ in 0..<10 { sounds.react(to: .peerJoined(ann), now: now) }
        sounds.tick(now: now + .seconds(10))
        #expect(speaker.frames.count * 20 <= 2_400, "\(speaker.frames.count * 20) ms of sound")
    }
}
