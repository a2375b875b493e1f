import ConfCore
import ConfWire
import Testing
@testable import ConfCall

/// The receive side of transport-wide congestion control on a manual clock: what the recorder
/// encodes is read back as a sender would (`ReferenceTimeUnwrapper`, unwrapped bases).
@Suite struct TransportFeedbackRecorderTests {
    /// Feeds arrivals in time order and polls at every deadline on the way, as the engine would.
    struct Harness {
        var recorder = TransportFeedbackRecorder(senderSSRC: 1, mediaSSRC: 2)
        var sent: [(at: Instant, feedback: TransportFeedback)] = []
        var arrivals: [SequenceNumber: Instant] = [:]

        mutating func run(until time: Instant) {
            while let deadline = recorder.nextDeadline, deadline <= time {
                sent += recorder.poll(now: deadline).map { (deadline, $0) }
            }
        }

        mutating func arrive(_ sequence: UInt16, at time: Instant) {
            run(until: time)
            recorder.received(sequence: SequenceNumber(sequence), at: time)
            if arrivals[SequenceNumber(sequence)] == nil { arrivals[SequenceNumber(sequence)] = time }
        }

        mutating func finish() {
            while let deadline = recorder.nextDeadline { sent += recorder.poll(now: deadline).map { (deadline, $0) } }
        }

        /// Every report as the sender reads it, by 16-bit number, in the order sent.
        var reports: [(sequence: SequenceNumber, arrival: Instant?)] {
            var bases = SequenceUnwrapper()
            var timeline = ReferenceTimeUnwrapper()
            return sent.flatMap { message in
                timeline.arrivals(of: message.feedback, unwrappedBase: Int64(bases.unwrap(message.feedback.baseSequence)))
                    .map { (SequenceNumber(extended: UInt64($0.sequence)), $0.arrival) }
            }
        }

        /// The first report of each number, and how many there were.
        var firstReports: [SequenceNumber: (arrival: Instant?, count: Int)] {
            var result: [SequenceNumber: (arrival: Instant?, count: Int)] = [:]
            for report in reports {
                let previous = result[report.sequence]
                result[report.sequence] = (previous?.arrival ?? report.arrival, (previous?.count ?? 0) + 1)
            }
            return result
        }
    }

    static func ms(_ value: UInt64) -> Instant { Instant(nanoseconds: 7_000_000_000 + value * 1_000_000) }

    /// Nanoseconds from `a` to `b`, negative when `b` is earlier.
    static func offset(_ a: Instant, _ b: Instant) -> Int64 { Int64(b.nanoseconds) - Int64(a.nanoseconds) }

    @Test func arrivalTimesComeBackWithin250Microseconds() throws {
        var harness = Harness()
        var random = SeededRandom(seed: 3)
        var time = Instant(nanoseconds: 12_345_678_901)
        for sequence in UInt16(0)..<600 {
            time = time + .nanoseconds(Int64(random.next() % 9_000_000))  // 0 to 9 ms apart, odd nanoseconds
            harness.arrive(sequence, at: time)
        }
        harness.finish()
        let reports = harness.firstReports
        #expect(reports.count == 600 && reports.values.allSatisfy { $0.count == 1 })
        let first = try #require(reports[0]?.arrival)
        for (sequence, truth) in harness.arrivals {
            let decoded = try #require(reports[sequence]?.arrival)
            let error = Self.offset(first, decoded) - Self.offset(harness.arrivals[0]!, truth)
            #expect(abs(error) < 250_000, "packet \(sequence) off by \(error) ns")
        }
    }

    @Test func feedbackGoesEvery100MillisecondsWithItsCountRising() {
        var harness = Harness()
        for sequence in UInt16(0)..<500 { harness.arrive(sequence, at: Self.ms(UInt64(sequence) * 3)) }  // 1.5 s of packets
        harness.finish()
        let times = harness.sent.map(\.at)
        #expect(times.first == Self.ms(0))  // the first packet is reported at once
        for (earlier, later) in zip(times, times.dropFirst()) where earlier != later {
            let gap = Self.offset(earlier, later)
            #expect(gap >= 100_000_000 && gap <= 103_000_000, "\(gap) ns between feedback")
        }
        #expect(harness.sent.count >= 15 && harness.sent.count <= 17)
        #expect(harness.sent.map(\.feedback.feedbackPacketCount) == (0..<harness.sent.count).map { UInt8($0) })
        #expect(harness.sent.allSatisfy { $0.feedback.senderSSRC == 1 && $0.feedback.mediaSSRC == 2 })
    }

    @Test func gapsAreReportedAsNotReceived() {
        var harness = Harness()
        let missing: Set<UInt16> = [10, 11, 50, 98]
        for sequence in UInt16(0)..<100 where !missing.contains(sequence) { harness.arrive(sequence, at: Self.ms(UInt64(sequence) * 2)) }
        harness.finish()
        let reports = harness.firstReports
        #expect(reports.count == 100)
        for sequence in UInt16(0)..<100 {
            #expect((reports[SequenceNumber(sequence)]?.arrival == nil) == missing.contains(sequence), "packet \(sequence)")
        }
    }

    @Test func reorderingWithinAnIntervalIsOneReportWithANegativeDelta() throws {
        var harness = Harness()
        harness.arrive(0, at: Self.ms(0))
        for (sequence, time) in [(1, 200), (2, 201), (4, 202), (3, 203), (5, 204)] as [(UInt16, UInt64)] {
            harness.arrive(sequence, at: Self.ms(time))
        }
        harness.finish()
        let reports = harness.firstReports
        #expect(reports.count == 6 && reports.values.allSatisfy { $0.count == 1 && $0.arrival != nil })
        let three = try #require(reports[3]?.arrival), four = try #require(reports[4]?.arrival)
        #expect(Self.offset(four, three) == 1_000_000)
        // In number order: 3 at 203 ms, then 4 a millisecond earlier, a negative delta of 4 × 250 µs.
        #expect(harness.sent.last?.feedback.packets.contains(.received(delta: -4)) == true)
    }

    @Test func aPacketReportedLostThatArrivesLateIsReportedOnceOnItsOwn() throws {
        var harness = Harness()
        for sequence in UInt16(0)..<10 where sequence != 5 { harness.arrive(sequence, at: Self.ms(UInt64(sequence))) }
        harness.run(until: Self.ms(150))
        harness.arrive(5, at: Self.ms(160))
        for sequence in UInt16(10)..<20 { harness.arrive(sequence, at: Self.ms(150 + UInt64(sequence))) }
        harness.finish()
        let fives = harness.reports.filter { $0.sequence == 5 }
        #expect(fives.count == 2 && fives[0].arrival == nil && fives[1].arrival != nil)
        let late = try #require(harness.sent.first { $0.feedback.baseSequence == 5 && $0.feedback.packets.count == 1 })
        #expect(late.feedback.packets[0].isReceived)
        let others = harness.firstReports.filter { $0.key != 5 }
        #expect(others.count == 19 && others.values.allSatisfy { $0.count == 1 && $0.arrival != nil })
    }

    @Test func aDuplicateCountsOnceByItsFirstArrival() throws {
        var harness = Harness()
        harness.arrive(0, at: Self.ms(0))
        harness.arrive(1, at: Self.ms(10))
        harness.arrive(2, at: Self.ms(20))
        harness.arrive(1, at: Self.ms(30))
        harness.run(until: Self.ms(200))
        harness.arrive(2, at: Self.ms(210))  // a duplicate of one already reported
        harness.arrive(3, at: Self.ms(220))
        harness.finish()
        let reports = harness.firstReports
        #expect(reports.count == 4 && reports.values.allSatisfy { $0.count == 1 })
        let one = try #require(reports[1]?.arrival), zero = try #require(reports[0]?.arrival)
        #expect(Self.offset(zero, one) == 10_000_000)
    }

    @Test func numbersWrapFrom65535To0() {
        var harness = Harness()
        for step in 0..<200 { harness.arrive(UInt16(truncatingIfNeeded: 65_450 + step), at: Self.ms(UInt64(step) * 4)) }
        harness.finish()
        let reports = harness.firstReports
        #expect(reports.count == 200 && reports.values.allSatisfy { $0.count == 1 && $0.arrival != nil })
        #expect(harness.sent.contains { $0.feedback.baseSequence.rawValue < 200 })
    }

    @Test func aBurstIsSplitIntoFeedbackOfAtMost1200Bytes() {
        var harness = Harness()
        harness.recorder = TransportFeedbackRecorder(senderSSRC: 1, eagerPacketCount: 100_000)
        var random = SeededRandom(seed: 8)
        var time = Self.ms(0)
        for sequence in UInt16(0)..<3000 {
            time = time + .nanoseconds(Int64(random.next() % 400_000))  // up to 400 µs apart: all in one interval
            if random.next() % 5 != 0 { harness.arrive(sequence, at: time) }  // a fifth lost
        }
        harness.arrive(3000, at: time)
        harness.finish()
        #expect(harness.sent.count >= 3)
        #expect(harness.sent.allSatisfy { $0.feedback.bytes.count <= 1200 })
        let reports = harness.firstReports
        #expect(reports.count == 3001 && reports.values.allSatisfy { $0.count == 1 })
        #expect(reports.values.filter { $0.arrival != nil }.count == harness.arrivals.count)
    }

    @Test func manyWaitingPacketsAreReportedBeforeTheInterval() {
        var harness = Harness()
        harness.recorder = TransportFeedbackRecorder(senderSSRC: 1, eagerPacketCount: 50)
        harness.arrive(0, at: Self.ms(0))
        for sequence in UInt16(1)...60 { harness.arrive(sequence, at: Self.ms(1) + .microseconds(Int64(sequence) * 100)) }
        // The first at once, then the 50 waiting by 6.1 ms, not at 100 ms.
        #expect(harness.sent.map(\.feedback.packets.count) == [1, 50])
        #expect(harness.sent.last.map { $0.at < Self.ms(10) } == true)
    }

    @Test func aDeltaBeyondSixteenBitsStartsAnotherFeedback() {
        var recorder = TransportFeedbackRecorder(senderSSRC: 1)
        recorder.received(sequence: 0, at: Self.ms(0))
        recorder.received(sequence: 1, at: Self.ms(9_000))  // 9 s later, more than 32767 × 250 µs
        let feedback = recorder.poll(now: Self.ms(9_000))
        #expect(feedback.map(\.baseSequence) == [0, 1])
        #expect(feedback.allSatisfy { $0.packets.count == 1 && $0.packets[0].isReceived })
    }

    @Test func aStreamThatJumpsFarAheadIsNotReportedAcrossTheGap() {
        var recorder = TransportFeedbackRecorder(senderSSRC: 1)
        for sequence in UInt16(0)..<10 { recorder.received(sequence: SequenceNumber(sequence), at: Self.ms(UInt64(sequence))) }
        recorder.received(sequence: 20_000, at: Self.ms(10))
        let feedback = recorder.poll(now: Self.ms(10))
        #expect(feedback.map(\.baseSequence) == [0, 20_000])
        #expect(feedback.map(\.packets.count) == [10, 1])
    }

    @Test func theDeadlineFollowsWhatWaits() {
        var recorder = TransportFeedbackRecorder(senderSSRC: 1)
        #expect(recorder.nextDeadline == nil)
        recorder.received(sequence: 7, at: Self.ms(5))
        #expect(recorder.nextDeadline == Self.ms(5))
        #expect(recorder.poll(now: Self.ms(4)).isEmpty)
        #expect(recorder.poll(now: Self.ms(5)).count == 1)
        #expect(recorder.nextDeadline == nil)
        recorder.received(sequence: 8, at: Self.ms(20))
        #expect(recorder.nextDeadline == Self.ms(105))
        recorder.received(sequence: 9, at: Self.ms(300))
        #expect(recorder.nextDeadline == Self.ms(105))  // overdue: poll at once
        #expect(recorder.poll(now: Self.ms(300)).map(\.packets.count) == [2])
        recorder.received(sequence: 10, at: Self.ms(1000))
        #expect(recorder.nextDeadline == Self.ms(1000))  // after a quiet spell: at once
    }

    @Test func aThirtySecondStreamStaysBoundedInMemory() {
        var harness = Harness()
        var most = 0
        for step in 0..<15_000 {  // 500 packets a second
            harness.arrive(UInt16(truncatingIfNeeded: step), at: Self.ms(UInt64(step) * 2))
            most = max(most, harness.recorder.storedArrivalCount)
        }
        harness.finish()
        // 500 ms of history and one 100 ms interval of waiting packets: about 300.
        #expect(most <= 320, "\(most) arrivals held")
        #expect(harness.reports.count == 15_000)
    }

    @Test func withoutPollingMemoryIsStillBounded() {
        var recorder = TransportFeedbackRecorder(senderSSRC: 1)
        for step in 0..<40_000 { recorder.received(sequence: SequenceNumber(UInt16(truncatingIfNeeded: step)), at: Self.ms(UInt64(step))) }
        #expect(recorder.storedArrivalCount <= TransportFeedbackRecorder.maximumStoredArrivals)
        let feedback = recorder.poll(now: Self.ms(40_000))
        #expect(feedback.reduce(0) { $0 + $1.packets.count } <= TransportFeedbackRecorder.maximumStoredArrivals)
    }

    /// A report (68 bytes on the wire) within 5 % of the incoming rate, from 100 to 250 ms.
    @Test func feedbackIntervalFollowsTheIncomingRate() {
        #expect(TransportFeedbackRecorder.interval(forIncoming: 0) == .milliseconds(250))
        #expect(TransportFeedbackRecorder.interval(forIncoming: 45_000) == .milliseconds(242))
        #expect(TransportFeedbackRecorder.interval(forIncoming: 100_000) == .milliseconds(109))
        #expect(TransportFeedbackRecorder.interval(forIncoming: 600_000) == .milliseconds(100))
    }
}
