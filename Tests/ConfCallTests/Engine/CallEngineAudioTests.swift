import ConfCall
import ConfCore
import ConfWire
import Testing

@Suite struct CallEngineAudioTests {
    /// RFC 7587 lets a sender put up to 120 ms of Opus in a packet: a peer sending 60 ms packets
    /// (one every 60 ms, the RTP clock 2,880 ahead each time) is played, three 20 ms frames a packet.
    @Test func aPeerSendingSixtyMillisecondPacketsIsPlayedAFrameAtATime() throws {
        let call = SimulatedCall(seed: 31)
        let ann = try call.add("ann")
        let bob = try call.add("bob")
        // TOC 0x58: configuration 11 (SILK wideband, one 60 ms frame), code 0 (RFC 6716 section 3.1).
        bob.audioPayload = [0x58, 0x01, 0x02]
        bob.audioInterval = .milliseconds(60)
        ann.sendsAudio = true
        bob.sendsAudio = true
        call.join(ann)
        call.join(bob)
        #expect(call.run(for: .seconds(5)) { call.fullMesh([ann, bob]) })
        let before = ann.receivedAudioFrames[bob.id, default: 0]
        call.run(for: .seconds(6))
        let played = ann.receivedAudioFrames[bob.id, default: 0] - before
        #expect((270...300).contains(played), "6 s of 20 ms frames from 60 ms packets: \(played)")
        #expect(ann.notes.allSatisfy { !$0.contains("sends audio in") }, "\(ann.notes)")
    }

    /// 10 ms packets (two per 20 ms frame) are what conf's minptime=20 asks peers not to send:
    /// dropped, with one note, not played at the wrong pace.
    @Test func aPeerSendingTenMillisecondPacketsIsNotedOnceAndNotPlayed() throws {
        let call = SimulatedCall(seed: 32)
        let ann = try call.add("ann")
        let bob = try call.add("bob")
        // TOC 0x90: configuration 18 (CELT narrowband, one 10 ms frame), code 0.
        bob.audioPayload = [0x90, 0x01, 0x02]
        bob.audioInterval = .milliseconds(10)
        ann.sendsAudio = true
        bob.sendsAudio = true
        call.join(ann)
        call.join(bob)
        #expect(call.run(for: .seconds(5)) { call.fullMesh([ann, bob]) })
        call.run(for: .seconds(3))
        #expect(ann.notes.filter { $0.contains("sends audio in packets of 10 ms") }.count == 1, "\(ann.notes)")
        #expect(ann.receivedAudioFrames[bob.id] == nil)
        #expect(bob.receivedAudioFrames[ann.id, default: 0] > 100, "ann's 20 ms packets play at bob's")
    }
}
