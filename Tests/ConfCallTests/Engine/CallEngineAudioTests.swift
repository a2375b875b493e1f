import ConfCall
import ConfCore
import ConfWire
import Testing

@Suite struct CallEngineAudioTests {
    /// ann and bob connected, both sending audio: ann 20 ms frames, bob `payload` every `interval`.
    static func connected(seed: UInt64, bobSends payload: [UInt8], every interval: Duration) throws
        -> (SimulatedCall, SimulatedCall.Participant, SimulatedCall.Participant) {
        let call = SimulatedCall(seed: seed)
        let ann = try call.add("ann"), bob = try call.add("bob")
        bob.audioPayload = payload
        bob.audioInterval = interval
        ann.sendsAudio = true
        bob.sendsAudio = true
        call.join(ann)
        call.join(bob)
        #expect(call.run(for: .seconds(5)) { call.fullMesh([ann, bob]) })
        return (call, ann, bob)
    }

    /// RFC 7587 lets a sender put up to 120 ms of Opus in a packet: a peer sending 60 ms packets
    /// (one every 60 ms, the RTP clock 2,880 ahead each time) is played, three 20 ms frames a packet.
    @Test func aPeerSendingSixtyMillisecondPacketsIsPlayedAFrameAtATime() throws {
        // TOC 0x58: configuration 11 (SILK wideband, one 60 ms frame), code 0 (RFC 6716 section 3.1).
        let (call, ann, bob) = try Self.connected(seed: 31, bobSends: [0x58, 0x01, 0x02], every: .milliseconds(60))
        let before = ann.receivedAudioFrames[bob.id, default: 0]
        call.run(for: .seconds(6))
        let played = ann.receivedAudioFrames[bob.id, default: 0] - before
        #expect((270...300).contains(played), "6 s of 20 ms frames from 60 ms packets: \(played)")
        #expect(!ann.notes.contains { if case .unplayableAudio = $0 { true } else { false } }, "\(ann.notes)")
    }

    /// Frames `listener` played out for `speaker` that no packet gave (concealed).
    static func concealedFrames(at listener: SimulatedCall.Participant, from speaker: SimulatedCall.Participant) -> Int {
        listener.audioFrames[speaker.id, default: 0] - listener.receivedAudioFrames[speaker.id, default: 0]
    }

    /// Our own loop held up for 70 ms (a busy machine), and the playout's timer runs before the
    /// socket that filled meanwhile is read, each datagram taking 3 ms to hand in (past the
    /// grace): the packets that waited there still play, a moment late; the tick does not
    /// conceal for them as if the network had stalled (which kept the wait as 20-40 ms more
    /// mouth-to-ear delay, and PulseAudio got the frames in a burst).
    @Test func aLateTickPlaysThePacketsThatWaitedInTheSocket() throws {
        let (call, ann, bob) = try Self.connected(seed: 33, bobSends: [0xF8, 0xFF, 0xFE], every: .milliseconds(20))
        call.run(for: .seconds(2))
        func concealed() -> Int { Self.concealedFrames(at: ann, from: bob) }
        let (concealedBefore, receivedBefore) = (concealed(), ann.receivedAudioFrames[bob.id, default: 0])
        call.freeze(ann)
        call.run(for: .milliseconds(70))
        call.thaw(ann, timersFirst: true, eachDatagramTakes: .milliseconds(3))
        call.run(for: .seconds(1))
        #expect(concealed() == concealedBefore, "concealed \(concealed() - concealedBefore) frames for packets that were in the socket")
        #expect(ann.receivedAudioFrames[bob.id, default: 0] - receivedBefore >= 52, "1.07 s of bob's 20 ms frames, all played")
    }

    /// The same late tick with nothing in the socket (bob stopped too): the wait is deferred
    /// once, then concealed as before, and no deadline is left in the past.
    @Test func aLateTickWithNothingQueuedConcealsAfterItsGrace() throws {
        let (call, ann, bob) = try Self.connected(seed: 34, bobSends: [0xF8, 0xFF, 0xFE], every: .milliseconds(20))
        call.run(for: .seconds(2))
        func concealed() -> Int { Self.concealedFrames(at: ann, from: bob) }
        let concealedBefore = concealed()
        call.freeze(bob)
        call.freeze(ann)
        call.run(for: .milliseconds(70))
        call.thaw(ann, timersFirst: true)
        #expect(concealed() == concealedBefore, "the late tick defers its wait")
        #expect(try #require(ann.engine.nextDeadline()) > call.now)
        call.run(for: .milliseconds(10))
        #expect(concealed() > concealedBefore, "then conceals the gap that is real")
        #expect(try #require(ann.engine.nextDeadline()) > call.now)
        call.thaw(bob)
        call.run(for: .seconds(1))
        #expect(ann.receivedAudioFrames[bob.id, default: 0] > 0)
    }

    /// 10 ms packets (two per 20 ms frame) are what conf's minptime=20 asks peers not to send:
    /// dropped, with one note, not played at the wrong pace.
    @Test func aPeerSendingTenMillisecondPacketsIsNotedOnceAndNotPlayed() throws {
        // TOC 0x90: configuration 18 (CELT narrowband, one 10 ms frame), code 0.
        let (call, ann, bob) = try Self.connected(seed: 32, bobSends: [0x90, 0x01, 0x02], every: .milliseconds(10))
        call.run(for: .seconds(3))
        #expect(ann.notes.filter { if case .unplayableAudio(_, milliseconds: 10) = $0 { true } else { false } }.count == 1, "\(ann.notes)")
        #expect(ann.receivedAudioFrames[bob.id] == nil)
        #expect(bob.receivedAudioFrames[ann.id, default: 0] > 100, "ann's 20 ms packets play at bob's")
    }
}
