@testable import ConfCall
import ConfCore
import ConfWire
import Testing

/// One link's layers and pause from its video budget (3 layers: 40, 60, 100 % of the encoder's rate).
@Suite struct LinkLayerPolicyTests {
    let start = Instant.zero + .seconds(10)

    @Test func layersFollowTheBudget() {
        var policy = LinkLayerPolicy()
        #expect(policy.update(budgetKbps: 600, encoderKbps: 600, layers: 3, now: start) == nil)
        #expect(policy.forwardedLayers == 3)
        _ = policy.update(budgetKbps: 400, encoderKbps: 600, layers: 3, now: start)
        #expect(policy.forwardedLayers == 2, "360 of 600 fits, 600 does not")
        _ = policy.update(budgetKbps: 250, encoderKbps: 600, layers: 3, now: start + .milliseconds(400))
        #expect(policy.forwardedLayers == 1, "240 fits")
        _ = policy.update(budgetKbps: 599, encoderKbps: 600, layers: 1, now: start + .milliseconds(400))
        #expect(policy.forwardedLayers == 1 && !policy.paused, "one layer: the only one, not yet paused")
        _ = policy.update(budgetKbps: 600, encoderKbps: 600, layers: 3, now: start + .milliseconds(600))
        #expect(policy.forwardedLayers == 3, "up at once")
    }

    /// A new policy (a link joining a call, or one judged afresh on another encoding) takes the
    /// layers its first budget fits: it has none to step down from.
    @Test func aNewPolicyStartsAtWhatFits() {
        var policy = LinkLayerPolicy()
        _ = policy.update(budgetKbps: 250, encoderKbps: 600, layers: 3, now: start)
        #expect(policy.forwardedLayers == 1, "240 of 600 fits")
    }

    @Test func layersGoDownOneStepAtATimeSoThatAMomentaryDipKeepsHalfTheFrameRate() {
        var policy = LinkLayerPolicy()
        _ = policy.update(budgetKbps: 600, encoderKbps: 600, layers: 3, now: start)
        // One rate update's dip to where only the base layer (240) fits, then back.
        _ = policy.update(budgetKbps: 300, encoderKbps: 600, layers: 3, now: start + .milliseconds(200))
        #expect(policy.forwardedLayers == 2, "one step down, not straight to a quarter of the frame rate")
        _ = policy.update(budgetKbps: 300, encoderKbps: 600, layers: 3, now: start + .milliseconds(400))
        #expect(policy.forwardedLayers == 2, "the next step waits")
        _ = policy.update(budgetKbps: 600, encoderKbps: 600, layers: 3, now: start + .milliseconds(500))
        #expect(policy.forwardedLayers == 3)
        // A fall that lasts reaches the base layer one spacing after the first step.
        _ = policy.update(budgetKbps: 300, encoderKbps: 600, layers: 3, now: start + .seconds(1))
        #expect(policy.forwardedLayers == 2)
        _ = policy.update(budgetKbps: 300, encoderKbps: 600, layers: 3, now: start + .milliseconds(1_200))
        #expect(policy.forwardedLayers == 2)
        _ = policy.update(budgetKbps: 300, encoderKbps: 600, layers: 3, now: start + .milliseconds(1_400))
        #expect(policy.forwardedLayers == 1)
    }

    @Test func aBudgetShortOfTheBaseLayerPausesAfterHalfASecondAndResumesWithAMargin() {
        var policy = LinkLayerPolicy()
        // Base layer: 40 % of 100 = 40 kbit/s.
        #expect(policy.update(budgetKbps: 30, encoderKbps: 100, layers: 3, now: start) == nil)
        #expect(policy.update(budgetKbps: 30, encoderKbps: 100, layers: 3, now: start + .milliseconds(400)) == nil)
        #expect(policy.update(budgetKbps: 30, encoderKbps: 100, layers: 3, now: start + .milliseconds(500)) == .paused)
        #expect(policy.forwardedLayers == 0)
        // 45 is above the base layer but inside the 1.25 margin: still paused.
        #expect(policy.update(budgetKbps: 45, encoderKbps: 100, layers: 3, now: start + .seconds(2)) == nil)
        #expect(policy.update(budgetKbps: 45, encoderKbps: 100, layers: 3, now: start + .seconds(4)) == nil)
        #expect(policy.update(budgetKbps: 50, encoderKbps: 100, layers: 3, now: start + .seconds(5)) == nil)
        #expect(policy.update(budgetKbps: 50, encoderKbps: 100, layers: 3, now: start + .milliseconds(5_900)) == nil)
        #expect(policy.update(budgetKbps: 50, encoderKbps: 100, layers: 3, now: start + .seconds(6)) == .resumed)
        #expect(policy.forwardedLayers == 1)
    }

    @Test func aResumeThatFailsDoublesTheWaitBeforeTheNextAndVideoThatLastsUndoesIt() {
        var policy = LinkLayerPolicy()
        var now = start
        /// Budget `kbps` (base layer 40) from `now` until the policy changes; the time it took.
        func until(_ kbps: Int) -> Duration {
            let from = now
            while policy.update(budgetKbps: kbps, encoderKbps: 100, layers: 3, now: now) == nil { now = now + .milliseconds(100) }
            return now.since(from)
        }
        #expect(until(20) == .milliseconds(500))
        #expect(until(60) == .seconds(1))
        // Each resume fails within 10 s: the next waits 2, 4, 8, 16, 32, 32 s.
        var waits: [Duration] = []
        for _ in 0..<6 {
            #expect(until(20) == .milliseconds(500))
            waits.append(until(60))
        }
        #expect(waits == [.seconds(2), .seconds(4), .seconds(8), .seconds(16), .seconds(32), .seconds(32)])
        // Video that went on for 10 s: the next pause is a new story.
        for _ in 0..<100 { #expect(policy.update(budgetKbps: 60, encoderKbps: 100, layers: 3, now: now) == nil); now = now + .milliseconds(100) }
        #expect(until(20) == .milliseconds(500))
        #expect(until(60) == .seconds(1))
    }

    @Test func aDipShorterThanTheWaitDoesNotPause() {
        var policy = LinkLayerPolicy()
        _ = policy.update(budgetKbps: 10, encoderKbps: 100, layers: 3, now: start)
        _ = policy.update(budgetKbps: 80, encoderKbps: 100, layers: 3, now: start + .milliseconds(300))
        #expect(policy.update(budgetKbps: 10, encoderKbps: 100, layers: 3, now: start + .milliseconds(600)) == nil)
        #expect(!policy.paused, "the wait starts again after the budget came back")
    }
}

/// A packet as it leaves the pacer: the transport sequence number stamped, padding as RFC 3550 says.
@Suite struct PacedPacketTests {
    let packet = RTPPacket(payloadType: 96, sequenceNumber: 7, timestamp: 90_000, ssrc: 0x1234_5678, extensions: [1: [0x9F]], payload: [1, 2, 3])

    @Test func theTransportSequenceNumberIsStampedFromItsLowSixteenBits() throws {
        let paced = PacedPacket(packet: packet, kind: .video, transportSequenceID: 3, srtpTagBytes: 16)
        let bytes = paced.wireBytes(transportSequence: 0x1_0102)
        let parsed = try #require(RTPPacket(bytes: bytes))
        #expect(parsed.extensions[3] == [0x01, 0x02])
        #expect(parsed.extensions[1] == [0x9F] && parsed.payload == [1, 2, 3] && parsed.sequenceNumber == 7)
        #expect(paced.wireSize == bytes.count + 16, "an AES-GCM link's tag")
    }

    @Test func withoutTheExtensionNothingIsAdded() {
        let paced = PacedPacket(packet: packet, kind: .audio, transportSequenceID: nil)
        #expect(paced.wireBytes(transportSequence: 5) == packet.bytes)
        #expect(paced.wireSize == packet.bytes.count + 10, "HMAC-SHA1-80 until the link says otherwise")
        #expect(paced.priority == .audio)
    }

    @Test func aProbeIsPaddingOnly() throws {
        var probe = PacedPacket(packet: RTPPacket(payloadType: 96, sequenceNumber: 1, timestamp: 0, ssrc: 9, payload: []), kind: .probe,
                                transportSequenceID: 3)
        probe.padding = 255
        let bytes = probe.wireBytes(transportSequence: 42)
        #expect(bytes[0] & 0x20 != 0, "P bit")
        #expect(bytes.last == 255, "the last octet counts the padding, itself included")
        let parsed = try #require(RTPPacket(bytes: bytes))
        #expect(parsed.payload.isEmpty && parsed.extensions[3] == [0, 42])
        #expect(probe.wireSize == bytes.count + 10)
        #expect(probe.priority == .video)
    }
}

extension LinkLayerPolicy {
    /// How many temporal layers the policy lets through: 0 while paused (the engine's own count
    /// also asks the layer selector which layer it is at).
    var forwardedLayers: Int { paused ? 0 : Int(maximumLayer) + 1 }
}
