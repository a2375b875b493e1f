@testable import ConfCall
import ConfCore
import ConfWire
import Testing

struct RetransmissionLimiterTests {
    static func at(_ ms: Int) -> Instant { Instant(nanoseconds: 1_000_000_000 + UInt64(ms) * 1_000_000) }

    @Test func aPacketIsResentAtMostOncePerRoundTrip() {
        var limiter = RetransmissionLimiter()
        let rtt = Duration.milliseconds(80)
        func allow(_ sequence: SequenceNumber, at ms: Int) -> Bool {
            limiter.allow(sequence, bytes: 1000, now: Self.at(ms), roundTrip: rtt, targetBitsPerSecond: 1_000_000)
        }
        let first = allow(7, at: 0), again = allow(7, at: 50), other = allow(8, at: 50), later = allow(7, at: 81)
        #expect(first && !again && later)
        #expect(other, "another packet is not held back")
    }

    @Test func resendsStayWithinHalfTheTarget() {
        // 400 kbit/s: half of it over 500 ms is 12,500 bytes, twelve packets of 1000.
        var limiter = RetransmissionLimiter()
        var allowed = 0
        for index in 0..<40 where limiter.allow(SequenceNumber(UInt16(index)), bytes: 1000, now: Self.at(index), roundTrip: nil,
                                                  targetBitsPerSecond: 400_000) {
            allowed += 1
        }
        #expect(allowed == 12)
        // Once the window has moved on, the budget is there again.
        let afterWindow = limiter.allow(100, bytes: 1000, now: Self.at(600), roundTrip: nil, targetBitsPerSecond: 400_000)
        #expect(afterWindow)
    }

    @Test func theResendRateIsWhatWentOutWithinTheWindow() {
        var limiter = RetransmissionLimiter()
        #expect(limiter.resentBitsPerSecond(now: Self.at(0)) == 0)
        for index in 0..<5 {
            _ = limiter.allow(SequenceNumber(UInt16(index)), bytes: 1000, now: Self.at(100 * index), roundTrip: nil, targetBitsPerSecond: 1_000_000)
        }
        // 5000 bytes within the last 500 ms: 80 kbit/s; 200 ms later the first two are out of it.
        #expect(limiter.resentBitsPerSecond(now: Self.at(400)) == 80_000)
        #expect(limiter.resentBitsPerSecond(now: Self.at(650)) == 48_000)
        #expect(limiter.resentBitsPerSecond(now: Self.at(2000)) == 0)
    }
}
