import ConfCore
import Testing
@testable import ConfCall

@Suite struct SentPacketHistoryTests {
    static let t0 = Instant(nanoseconds: 1_000_000_000)
    static func at(_ milliseconds: Int) -> Instant { t0 + .milliseconds(milliseconds) }

    @Test func matchesFeedbackToSends() {
        var history = SentPacketHistory()
        history.record(sequence: 1, size: 1200, at: Self.at(0))
        history.record(sequence: 2, size: 800, at: Self.at(5))
        history.record(sequence: 3, size: 100, at: Self.at(9))
        let arrival = Instant(nanoseconds: 77)
        let reports = history.match([.init(sequence: 1, arrival: arrival), .init(sequence: 2, arrival: nil),
                                     .init(sequence: 99, arrival: arrival), .init(sequence: 3, arrival: arrival)], now: Self.at(50))
        #expect(reports == [.init(sequence: 1, sentAt: Self.at(0), size: 1200, arrival: arrival),
                            .init(sequence: 2, sentAt: Self.at(5), size: 800, arrival: nil),
                            .init(sequence: 3, sentAt: Self.at(9), size: 100, arrival: arrival)])
    }

    @Test func eachPacketIsReportedReceivedOnceAndLostOnce() {
        var history = SentPacketHistory()
        history.record(sequence: 10, size: 1000, at: Self.at(0))
        history.record(sequence: 11, size: 1000, at: Self.at(1))
        let feedback: [PacketFeedback] = [.init(sequence: 10, arrival: Self.at(30)), .init(sequence: 11, arrival: nil)]
        #expect(history.match(feedback, now: Self.at(40)).count == 2)
        #expect(history.match(feedback + feedback, now: Self.at(50)).isEmpty)
        // Reported lost, then received after all (a late packet): the reception counts.
        #expect(history.match([.init(sequence: 11, arrival: Self.at(60))], now: Self.at(70)).map(\.sequence) == [11])
        #expect(history.match([.init(sequence: 11, arrival: nil)], now: Self.at(80)).isEmpty)
    }

    @Test func forgetsBeyondItsCapacityAndAge() {
        var history = SentPacketHistory(capacity: 3, maximumAge: .seconds(60))
        for sequence in Int64(1)...5 { history.record(sequence: sequence, size: 100, at: Self.at(Int(sequence))) }
        #expect(history.count == 3)
        let all = (Int64(1)...5).map { PacketFeedback(sequence: $0, arrival: Self.at(100)) }
        #expect(history.match(all, now: Self.at(100)).map(\.sequence) == [3, 4, 5])

        var aging = SentPacketHistory(capacity: 100, maximumAge: .seconds(60))
        aging.record(sequence: 1, size: 100, at: Self.at(0))
        aging.record(sequence: 2, size: 100, at: Self.at(30_000))
        #expect(aging.match([.init(sequence: 1, arrival: nil), .init(sequence: 2, arrival: nil)], now: Self.at(61_000)).map(\.sequence) == [2])
        #expect(aging.count == 1)
    }

    @Test func aNumberRecordedTwiceKeepsItsLaterSend() {
        var history = SentPacketHistory(capacity: 2)
        history.record(sequence: 7, size: 100, at: Self.at(0))
        history.record(sequence: 7, size: 200, at: Self.at(1))
        history.record(sequence: 8, size: 300, at: Self.at(2))  // evicts the first record of 7 only
        #expect(history.match([.init(sequence: 7, arrival: Self.at(9))], now: Self.at(10)).map(\.size) == [200])
    }

    /// Hostile feedback: numbers never sent, the extremes of Int64, a packet repeated a thousand
    /// times, clocks at both ends: nothing traps and each packet is reported at most twice.
    @Test func hostileFeedbackTellsNothingNew() {
        var history = SentPacketHistory()
        history.record(sequence: .max, size: -5, at: Self.at(0))
        history.record(sequence: .min, size: .max, at: Self.at(0))
        var feedback: [PacketFeedback] = (0..<50_000).map { .init(sequence: Int64($0) * 7_919, arrival: Instant(nanoseconds: .max)) }
        feedback += Array(repeating: .init(sequence: .max, arrival: nil), count: 1000)
        feedback += Array(repeating: .init(sequence: .min, arrival: .zero), count: 1000)
        let reports = history.match(feedback, now: Self.at(5))
        #expect(reports.map(\.sequence) == [.max, .min])
        #expect(reports.map(\.size) == [0, WireSize.largest])
    }
}

@Suite struct BitrateWindowTests {
    @Test func ratesTheLastHalfSecondOfArrivals() {
        var rate = BitrateWindow()
        let t0 = Instant(nanoseconds: 42)
        for n in 0..<50 { rate.add(at: t0 + .milliseconds(n * 10), size: 1000) }  // 490 ms: not yet a window
        #expect(rate.bitsPerSecond == nil)
        for n in 50..<100 { rate.add(at: t0 + .milliseconds(n * 10), size: 1000) }
        #expect(rate.bitsPerSecond == 50 * 1000 * 8 / 0.5)  // 1000 bytes per 10 ms: 800 kbit/s
        for n in 100..<150 { rate.add(at: t0 + .milliseconds(n * 10), size: 250) }
        #expect(rate.bitsPerSecond == 50 * 250 * 8 / 0.5)  // the older, bigger packets left the window
    }

    /// What we sent is rated up to now: a sender that stopped has sent nothing a window later.
    @Test func advancingEndsTheWindowNow() {
        var rate = BitrateWindow()
        let t0 = Instant(nanoseconds: 42)
        for n in 0..<60 { rate.add(at: t0 + .milliseconds(n * 10), size: 1000) }
        rate.advance(to: t0 + .milliseconds(840))
        #expect(rate.bitsPerSecond == 25 * 1000 * 8 / 0.5)  // 350...590 ms are within the window ending at 840
        rate.advance(to: t0 + .milliseconds(2000))
        #expect(rate.bitsPerSecond == 0)
        rate.advance(to: t0)  // the past: nothing changes
        #expect(rate.bitsPerSecond == 0)
    }

    @Test func anArrivalBeforeTheLatestCountsWithIt() {
        var rate = BitrateWindow()
        rate.add(at: Instant(nanoseconds: 10_000_000_000), size: 1000)
        rate.add(at: Instant(nanoseconds: 10_600_000_000), size: 1000)
        rate.add(at: .zero, size: 1000)  // a lying clock
        #expect(rate.bitsPerSecond == 2 * 1000 * 8 / 0.5)
    }
}
