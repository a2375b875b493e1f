@testable import ConfCall
import ConfCore
import Testing

/// The receiver's view of how long a peer's audio queues: arrival minus RTP timestamp, above the
/// least of the last 10 s.
struct InboundQueueDelayTests {
    static let start = Instant.zero + .seconds(100)

    /// 20 ms Opus frames (960 ticks at 48 kHz) from `first`, the n-th arriving `extra(n)` ms late.
    static func feed(_ meter: inout InboundQueueDelay, frames: Range<Int>, firstTimestamp: UInt32 = 1000, extra: (Int) -> Int = { _ in 0 }) {
        for n in frames {
            meter.record(rtpTimestamp: firstTimestamp &+ UInt32(n * 960), at: start + .milliseconds(Int64(n * 20 + extra(n))))
        }
    }

    @Test func aSteadyPathHasNoQueue() throws {
        var meter = InboundQueueDelay()
        Self.feed(&meter, frames: 0..<100)
        #expect(try #require(meter.queueDelay(now: Self.start + .seconds(2))) == .zero)
    }

    @Test func aGrowingQueueShowsAndOneLatePacketDoesNot() throws {
        var meter = InboundQueueDelay()
        // 2 s clear, then one packet 80 ms late, then the queue grows to 120 ms.
        Self.feed(&meter, frames: 0..<100)
        Self.feed(&meter, frames: 100..<101) { _ in 80 }
        Self.feed(&meter, frames: 101..<103)
        #expect(try #require(meter.queueDelay(now: Self.start + .milliseconds(2_060))) == .zero, "one late packet is not a queue")
        Self.feed(&meter, frames: 103..<160) { n in min(120, (n - 103) * 4) }
        let delay = try #require(meter.queueDelay(now: Self.start + .milliseconds(3_300)))
        #expect(delay >= .milliseconds(110) && delay <= .milliseconds(120), "\(delay)")
    }

    @Test func silenceOrTooFewPacketsGiveNothing() {
        var meter = InboundQueueDelay()
        Self.feed(&meter, frames: 0..<3)
        #expect(meter.queueDelay(now: Self.start + .milliseconds(60)) == nil, "fewer packets than it takes the least of")
        Self.feed(&meter, frames: 3..<50)
        #expect(meter.queueDelay(now: Self.start + .milliseconds(980)) != nil)
        #expect(meter.queueDelay(now: Self.start + .seconds(3)) == nil, "a muted peer sends nothing: no figure after a second")
    }

    /// A peer that goes from 20 ms packets to 60 ms ones (three frames each, stamped with the
    /// first's timestamp, sent when the third is captured) shows no queue that is not there; a
    /// queue that builds afterwards shows as it would in 20 ms packets.
    @Test func sixtyMillisecondPacketsReadByTheirLastFrame() throws {
        var meter = InboundQueueDelay()
        Self.feed(&meter, frames: 0..<100)
        // Packets of frames 100-102, 103-105, ...: leave (and arrive, on a clear path) at the
        // last frame's time, 40 ms after the first frame's timestamp.
        for first in stride(from: 100, to: 190, by: 3) {
            meter.record(rtpTimestamp: 1000 &+ UInt32(first * 960), samples: 2_880, at: Self.start + .milliseconds(Int64((first + 2) * 20)))
        }
        #expect(try #require(meter.queueDelay(now: Self.start + .milliseconds(3_790))) == .zero)
        for first in stride(from: 190, to: 250, by: 3) {
            meter.record(rtpTimestamp: 1000 &+ UInt32(first * 960), samples: 2_880, at: Self.start + .milliseconds(Int64((first + 2) * 20 + 50)))
        }
        let delay = try #require(meter.queueDelay(now: Self.start + .milliseconds(5_000)))
        #expect(delay == .milliseconds(50), "\(delay)")
    }

    @Test func theTimestampWrapsWithoutAJump() throws {
        var meter = InboundQueueDelay()
        Self.feed(&meter, frames: 0..<60, firstTimestamp: UInt32.max - 960 * 30)
        #expect(try #require(meter.queueDelay(now: Self.start + .milliseconds(1_200))) == .zero)
    }

    @Test func timestampsThatJumpAboutAreBoundedNotATrap() {
        var meter = InboundQueueDelay()
        var random = SeededRandom(seed: 7)
        for n in 0..<5_000 {
            meter.record(rtpTimestamp: UInt32.random(in: 0...UInt32.max, using: &random), at: Self.start + .milliseconds(Int64(n)))
        }
        let delay = meter.queueDelay(now: Self.start + .seconds(5))
        #expect(delay.map { $0 >= .zero && $0 <= .seconds(60) } ?? true, "\(String(describing: delay))")
        // Timestamps stepping back by 2^31 - 1, 300,000 of them within a third of a second: the
        // transit grows past what Int64 nanoseconds hold (1.3e13 ms).
        var backwards = InboundQueueDelay()
        var timestamp: UInt32 = 0
        for n in 0..<300_000 {
            backwards.record(rtpTimestamp: timestamp, at: Self.start + .nanoseconds(Int64(n) * 1000))
            timestamp = timestamp &- 0x7FFF_FFFF
        }
        #expect(backwards.queueDelay(now: Self.start + .milliseconds(300)) == .seconds(60))
    }
}
