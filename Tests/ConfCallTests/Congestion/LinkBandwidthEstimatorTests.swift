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
}
