@testable import ConfCall
import ConfCore
import Testing

struct ProbeBitrateEstimatorTests {
    static func at(_ microseconds: Int) -> Instant { Instant(nanoseconds: 5_000_000_000 + UInt64(microseconds) * 1000) }

    /// Ten packets of 1000 bytes sent 4 ms apart (2 Mbit/s) arriving `spacing` µs apart: the result
    /// once the fifth has arrived, and nothing for the same cluster after.
    static func run(arrivalSpacing spacing: Int) -> [Double] {
        var estimator = ProbeBitrateEstimator()
        return (0..<10).compactMap { index in
            estimator.received(cluster: 1, sentAt: Self.at(index * 4000), arrival: Self.at(30_000 + index * spacing), size: 1000)
        }
    }

    @Test func aClusterThatArrivesAsItLeftShowsItsSendRate() throws {
        let results = Self.run(arrivalSpacing: 4000)
        #expect(results.count == 1)
        #expect(abs(try #require(results.first) - 2_000_000) < 1)
    }

    @Test func aClusterThatQueuedShowsWhatArrived() throws {
        // Arriving 8 ms apart: the path carried 1 Mbit/s, and the result is 95 % of that.
        let result = try #require(Self.run(arrivalSpacing: 8000).first)
        #expect(abs(result - 950_000) < 1)
    }

    @Test func tooFewPacketsOrNoSpanGiveNothing() {
        var estimator = ProbeBitrateEstimator()
        let few = (0..<4).compactMap { estimator.received(cluster: 2, sentAt: Self.at($0 * 1000), arrival: Self.at($0 * 1000), size: 500) }
        #expect(few.isEmpty)
        let sameInstant = (0..<8).compactMap { _ in estimator.received(cluster: 3, sentAt: Self.at(0), arrival: Self.at(0), size: 500) }
        #expect(sameInstant.isEmpty)
    }

    @Test func aClusterThatLeftAndArrivedInABurstShowsNoMoreThanItsAim() throws {
        // Aimed at 600 kbit/s, but the sender caught up in one burst (1000 bytes every 0.5 ms,
        // 16 Mbit/s) and a token bucket let it all through as fast: the path is known to carry 600 kbit/s.
        var estimator = ProbeBitrateEstimator()
        estimator.aim(cluster: 4, bitsPerSecond: 600_000)
        let results = (0..<10).compactMap { index in
            estimator.received(cluster: 4, sentAt: Self.at(index * 500), arrival: Self.at(30_000 + index * 500), size: 1000)
        }
        #expect(results == [600_000])
        // A cluster that was not aimed keeps the measured rate.
        let unaimed = (0..<10).compactMap { index in
            estimator.received(cluster: 5, sentAt: Self.at(index * 500), arrival: Self.at(30_000 + index * 500), size: 1000)
        }
        #expect(abs(try #require(unaimed.first) - 16_000_000) < 1)
    }

    @Test func anAimedClusterIsJudgedOnMostOfItsPacketsNotOnItsHead() throws {
        // Ten packets of 1000 bytes aimed at 2 Mbit/s (4 ms apart). A token bucket of 5 kB lets
        // the first five through as they left; the rest queue behind a 1 Mbit/s rate (8 ms apart).
        // Judged at the fifth, the cluster read 2 Mbit/s; judged at the eighth, it reads the queue.
        var estimator = ProbeBitrateEstimator()
        estimator.aim(cluster: 6, bitsPerSecond: 2_000_000, packets: 10)
        let arrivals = (0..<10).map { $0 < 5 ? 30_000 + $0 * 4000 : 46_000 + ($0 - 4) * 8000 }
        let results = (0..<10).compactMap { index in
            estimator.received(cluster: 6, sentAt: Self.at(index * 4000), arrival: Self.at(arrivals[index]), size: 1000)
        }
        #expect(results.count == 1)
        // Seven packets' bytes over 16 + 24 ms of arrivals: 1.4 Mbit/s, under 90 % of the send rate.
        let result = try #require(results.first)
        #expect(abs(result - 0.95 * 7000 * 8 / 0.040) < 1, "\(result)")
        // A cluster of which fewer than 80 % arrive is never judged.
        estimator.aim(cluster: 7, bitsPerSecond: 2_000_000, packets: 10)
        let lossy = (0..<7).compactMap { estimator.received(cluster: 7, sentAt: Self.at($0 * 4000), arrival: Self.at(30_000 + $0 * 4000), size: 1000) }
        #expect(lossy.isEmpty)
    }
}
