import ConfCore
import ConfSession
import ConfWire
import Testing

@Suite struct RoundTripMeterTests {
    /// Two meters on a simulated link with a 40 ms one-way delay and a peer that holds the SR 5 ms.
    @Test func measuresTheRoundTripWithinAMillisecond() {
        var a = RoundTripMeter(localSSRC: 1), b = RoundTripMeter(localSSRC: 2)
        let start = Instant(nanoseconds: 5_000_000_000)
        let sr = a.senderReport(now: start)
        let answer = b.received(RTCPPacket.parseCompound(sr.bytes)!, now: start + .milliseconds(40))
        #expect(answer != nil)
        _ = a.received(RTCPPacket.parseCompound(answer!.bytes)!, now: start + .milliseconds(80))
        #expect(abs(a.latest!.milliseconds - 80) < 1, "\(a.latest!)")
        #expect(b.latest == nil)  // b has not sent an SR yet
        // A later report, held 5 ms before going out: the hold is not counted.
        let held = b.receiverReport(now: start + .milliseconds(45))
        _ = a.received(RTCPPacket.parseCompound(held.bytes)!, now: start + .milliseconds(85))
        #expect(abs(a.latest!.milliseconds - 80) < 1, "\(a.latest!)")
    }

    @Test func forgedBlocksAreIgnored() {
        var a = RoundTripMeter(localSSRC: 1)
        let forged = RTCPPacket.receiverReport(ssrc: 9, blocks: [.init(ssrc: 1, lastSR: 0x7FFF_FFFF, delaySinceLastSR: 0)])
        _ = a.received([forged], now: Instant(nanoseconds: 1_000_000_000))
        #expect(a.latest == nil)
    }
}
