import ConfCore
import Testing
@testable import ConfCall

@Suite struct LinkBandwidthEstimatorTests {
    static let t0 = Instant(nanoseconds: 4_000_000_000)
    static func at(_ milliseconds: Int) -> Instant { t0 + .milliseconds(milliseconds) }

    @Test func startsAtTheConfiguredRateWithinItsBounds() {
        var configuration = LinkBandwidthEstimator.Configuration()
        configuration.start = 10_000_000
        configuration.maximum = 2_000_000
        let estimator = LinkBandwidthEstimator(configuration: configuration)
        #expect(estimator.target == 2_000_000)
        let statistics = estimator.statistics
        #expect(statistics.delayBased == nil && statistics.acknowledged == nil && statistics.queueDelay == nil)
        var odd = LinkBandwidthEstimator.Configuration()
        odd.minimum = -5
        odd.maximum = -10
        #expect(LinkBandwidthEstimator(configuration: odd).target == 1000)
    }

    @Test func theReceiversEstimateIsABoundClampedToTheMinimum() {
        var estimator = LinkBandwidthEstimator()
        estimator.onReceiverEstimate(bitsPerSecond: 100_000, at: Self.at(0))
        #expect(estimator.target == 100_000)
        estimator.onReceiverEstimate(bitsPerSecond: -1, at: Self.at(10))
        #expect(estimator.target == estimator.configuration.minimum)
        // Without transport feedback, REMB is the receiver's own delay-based estimate: taken as it is.
        estimator.onReceiverEstimate(bitsPerSecond: .max, at: Self.at(20))
        #expect(estimator.target == estimator.configuration.maximum)
    }

    /// Receiver reports drive the loss bound only while no transport feedback came lately: the
    /// same packets must not count twice.
    @Test func receiverReportLossCountsOnlyWithoutTransportFeedback() {
        var estimator = LinkBandwidthEstimator()
        estimator.onLossReport(fraction: 0.5, at: Self.at(0))
        #expect(estimator.target == 225_000)
        estimator.onLossReport(fraction: 0, at: Self.at(1000))
        #expect(estimator.target == 236_250)

        var fed = LinkBandwidthEstimator()
        for n in 0..<30 { fed.onSent(sequence: Int64(n), size: 1000, at: Self.at(n)) }
        fed.onFeedback((0..<30).map { PacketFeedback(sequence: Int64($0), arrival: Self.at(40 + $0)) }, at: Self.at(100))
        let before = fed.target
        fed.onLossReport(fraction: 0.5, at: Self.at(1000))
        #expect(fed.target == before)
        fed.onLossReport(fraction: 0.5, at: Self.at(3000))
        #expect(fed.target < before)
    }

    @Test func roundTripsOutsideReasonAreIgnored() {
        var estimator = LinkBandwidthEstimator()
        estimator.onRoundTrip(.milliseconds(80), at: Self.at(0))
        estimator.onRoundTrip(.milliseconds(-5), at: Self.at(1))
        estimator.onRoundTrip(.seconds(3600), at: Self.at(2))
        #expect(estimator.roundTrip == .milliseconds(80) && estimator.statistics.roundTrip == .milliseconds(80))
    }

    /// Feedback from a hostile or broken peer: arrivals at both ends of the clock, numbers never
    /// sent, everything lost, everything at once. Nothing traps; the target stays in bounds.
    @Test func hostileFeedbackKeepsTheTargetInBounds() {
        var estimator = LinkBandwidthEstimator()
        var random = SeededRandom(seed: 99)
        var sequence: Int64 = 0
        for round in 0..<200 {
            for _ in 0..<20 {
                estimator.onSent(sequence: sequence, size: Int.random(in: -10...70_000, using: &random), at: Self.at(round * 10))
                sequence += 1
            }
            let feedback = (0..<40).map { _ in
                PacketFeedback(sequence: Int64.random(in: (sequence - 30)...(sequence + 5), using: &random),
                               arrival: Bool.random(using: &random) ? nil : Instant(nanoseconds: UInt64.random(in: 0...UInt64.max, using: &random)))
            }
            estimator.onFeedback(feedback, at: Self.at(round * 10 + 5))
            #expect(estimator.target >= estimator.configuration.minimum && estimator.target <= estimator.configuration.maximum)
        }
        estimator.onFeedback([PacketFeedback(sequence: .min, arrival: .zero), PacketFeedback(sequence: .max, arrival: nil)], at: Self.at(5000))
        let statistics = estimator.statistics
        #expect(statistics.delayBased != nil && (statistics.queueDelay ?? .zero) >= .zero)
    }

    /// Packets of `size` bytes every 20 ms for 4 s, fed back every 100 ms, over a path of 40 ms
    /// that queues from 2 s on for 300 ms (each packet 5 ms later than the one before) and then
    /// drains as fast: an over-use, with no queue left standing. The lowest target seen.
    static func lowestTargetThroughAnOveruse(packetSize: Int) -> Int {
        var estimator = LinkBandwidthEstimator()
        estimator.onRoundTrip(.milliseconds(80), at: at(0))
        var lowest = estimator.target
        var pending: [PacketFeedback] = []
        for packet in 0..<200 {
            let sent = packet * 20
            estimator.onSent(sequence: Int64(packet), size: packetSize, at: at(sent))
            let intoQueue = sent - 2000
            let queued = intoQueue < 0 ? 0 : intoQueue < 300 ? intoQueue / 4 : max(0, 75 - (intoQueue - 300) / 4)
            pending.append(PacketFeedback(sequence: Int64(packet), arrival: at(sent + 40 + queued) + .seconds(700)))
            if packet % 5 == 4 {
                estimator.onFeedback(pending, at: at(sent + 40 + queued + 40))
                pending.removeAll()
                lowest = min(lowest, estimator.target)
            }
        }
        return lowest
    }

    /// A paused link sends only its audio, far under its estimate: an over-use cuts the estimate
    /// as GCC's AIMD did before it cut to what the path delivered (0.85 of it, once per round
    /// trip), not to 0.85 of the audio, the floor, which a starved receiver's late reads made
    /// of every probe's finding (Tests/FLAKES.md, the camera VM). A link that sends most of its
    /// rate is still cut to 0.85 of what the path delivered. (Start-up has grown the estimate to
    /// about 400 kbit/s by then.)
    @Test func anOveruseWhileSendingLittleIsNotACutToWhatWasSent() {
        let trickle = Self.lowestTargetThroughAnOveruse(packetSize: 100)  // 40 kbit/s of about 400
        #expect(trickle > 250_000, "\(trickle)")
        let filling = Self.lowestTargetThroughAnOveruse(packetSize: 700)  // 280 kbit/s
        #expect(filling < 250_000 && filling > 150_000, "\(filling)")
    }
}
