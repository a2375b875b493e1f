import ConfCall
import ConfCore
import ConfWire
import Testing

@Suite struct CallEngineAudioTests {
    /// RFC 7587 lets a sender use packets of up to 120 ms unless told otherwise; conf's SDP says
    /// `a=maxptime:20`, and a peer that sends longer packets anyway is dropped with one note,
    /// not played as concealment frames at the wrong pace.
    @Test func aPeerSendingSixtyMillisecondPacketsIsNotedOnceAndNotPlayed() throws {
        let call = SimulatedCall(seed: 31)
        let ann = try call.add("ann")
        // TOC 0x58: configuration 11 (SILK wideband, one 60 ms frame), code 0 (RFC 6716 section 3.1).
        let bob = try call.add("bob")
        bob.audioPayload = [0x58, 0x01, 0x02]
        ann.sendsAudio = true
        bob.sendsAudio = true
        call.join(ann)
        call.join(bob)
        #expect(call.run(for: .seconds(5)) { call.fullMesh([ann, bob]) })
        call.run(for: .seconds(3))
        let notes = ann.notes.filter { $0.contains("sends audio in packets of 60 ms") }
        #expect(notes.count == 1, "\(ann.notes)")
        #expect(ann.receivedAudioFrames[bob.id] == nil)
        #expect(bob.receivedAudioFrames[ann.id, default: 0] > 100, "ann's 20 ms packets play at bob's")
        #expect(bob.notes.allSatisfy { !$0.contains("sends audio in packets") })
    }
}
