import ConfCore
import ConfWire

/// The receive side of transport-wide congestion control for one link
/// (draft-holmer-rmcat-transport-wide-cc-extensions-01 section 3): records when each RTP
/// packet carrying a `TransportSequenceNumber` arrived, and turns that into `TransportFeedback`
/// for the peer's sender-side estimator. Pure: time comes in as `Instant`s.
///
///     received(sequence:at:)   for each such packet, as it is read (before the jitter buffer)
///     poll(now:)               at `nextDeadline`: feedback messages to send in RTCP, in order
///
/// When: at most one batch every `interval` (100 ms; on a link that brings audio alone the engine
/// sets it from `interval(forIncoming:)`, as libwebrtc's remote estimator proxy does), and no packet waits
/// longer than that; the first packet after a quiet spell is reported at once, and
/// `eagerPacketCount` waiting packets are reported at once too, so a fast stream is not held back.
///
/// What: each batch reports every number from the first one not yet reported up to the highest
/// received, the ones that did not arrive as not received. Each message stays within
/// `maximumFeedbackBytes`; a longer report, a delta beyond the 16-bit field (8 s) or a gap of more
/// than `maximumReportedGap` numbers (a stream restarted far ahead; not reported) starts the next.
/// A packet arriving after its number was reported as not received (reordering), while its
/// neighbours are still remembered (`history`), gets a message of its own (with any late ones
/// next to it): a packet is reported received at most once, and one reported not received may
/// later be reported received. Duplicates count once, by their first arrival.
///
/// Memory: arrivals are remembered for `history` after they are reported, and never more than
/// `maximumStoredArrivals` of them.
public struct TransportFeedbackRecorder: Sendable {
    public var senderSSRC: SSRC
    /// Put in each feedback; libwebrtc puts there the SSRC of a stream it received.
    public var mediaSSRC: SSRC
    public var interval: Duration
    public let history: Duration
    public let maximumFeedbackBytes: Int
    public let eagerPacketCount: Int
    public static let maximumStoredArrivals = 8192
    /// The longest run of missing numbers reported between two received packets: one run-length chunk.
    public static let maximumReportedGap: Int64 = 8191

    struct Arrival: Sendable {
        var sequence: Int64
        var at: Instant
    }

    private var unwrapper = SequenceUnwrapper()
    /// Unwrapped numbers ascending, each once: the packets not yet reported and those reported
    /// within `history`.
    private var arrivals: [Arrival] = []
    /// Numbers below this are forgotten: a packet arriving with one is dropped.
    private var heldFrom: Int64 = .min
    /// The first number of the next batch; lower ones were reported (received or not).
    private var reportFrom: Int64 = .min
    /// Packets that arrived below `reportFrom`, waiting for their own messages; ascending.
    private var late: [Arrival] = []
    private var waitingCount = 0
    private var firstWaitingArrival: Instant?
    private var lastFeedbackAt: Instant?
    private var feedbackCount: UInt8 = 0

    public static let defaultInterval: Duration = .milliseconds(100)

    public init(senderSSRC: SSRC, mediaSSRC: SSRC = 0, interval: Duration = defaultInterval, history: Duration = .milliseconds(500),
                maximumFeedbackBytes: Int = 1200, eagerPacketCount: Int = 200) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.interval = interval
        self.history = history
        self.maximumFeedbackBytes = maximumFeedbackBytes
        self.eagerPacketCount = eagerPacketCount
    }

    /// The feedback interval for a link that brings `bitsPerSecond`: as often as keeps a report
    /// (about 68 bytes on the wire with IP, UDP and SRTCP) within 5 % of that rate, as libwebrtc
    /// does, but from 100 ms (what the estimator here is tuned for; libwebrtc goes down to 50) to
    /// 250 ms. An audio-only link (about 45 kbit/s) gets four reports a second instead of ten.
    public static func interval(forIncoming bitsPerSecond: Double) -> Duration {
        let reportBits = 68.0 * 8
        let seconds = reportBits / (0.05 * max(1, bitsPerSecond))
        return .milliseconds(Int64(min(250, max(100, seconds * 1000)).rounded()))
    }

    /// How many arrivals are remembered now.
    public var storedArrivalCount: Int { arrivals.count }

    /// When to call `poll(now:)`; nil while nothing waits to be reported.
    public var nextDeadline: Instant? {
        guard let first = firstWaitingArrival else { return nil }
        guard waitingCount < eagerPacketCount, let last = lastFeedbackAt else { return first }
        return max(last + interval, first)
    }

    /// Records that the packet numbered `sequence` (its `TransportSequenceNumber`) arrived `at`.
    public mutating func received(sequence: SequenceNumber, at arrival: Instant) {
        let number = Int64(truncatingIfNeeded: unwrapper.unwrap(sequence))
        guard number >= heldFrom else { return }
        let index = insertionIndex(of: number)
        guard index == arrivals.count || arrivals[index].sequence != number else { return }  // a duplicate
        arrivals.insert(Arrival(sequence: number, at: arrival), at: index)
        if number < reportFrom {
            late.insert(Arrival(sequence: number, at: arrival), at: late.firstIndex { $0.sequence > number } ?? late.count)
        }
        waitingCount += 1
        firstWaitingArrival = min(firstWaitingArrival ?? arrival, arrival)
        if arrivals.count > Self.maximumStoredArrivals { forget(arrivals.count - Self.maximumStoredArrivals * 3 / 4) }
    }

    /// The feedback due at `now`, in the order to send it; empty before `nextDeadline`.
    public mutating func poll(now: Instant) -> [TransportFeedback] {
        guard let deadline = nextDeadline, now >= deadline else { return [] }
        var feedback: [TransportFeedback] = []
        var start = late.startIndex
        while start < late.endIndex {  // one message per run of consecutive late numbers
            var end = start + 1
            while end < late.endIndex && late[end].sequence == late[end - 1].sequence + 1 { end += 1 }
            feedback += report(late[start..<end])
            start = end
        }
        let waiting = insertionIndex(of: reportFrom)
        feedback += report(arrivals[waiting...], from: reportFrom == .min ? nil : reportFrom)
        if let highest = arrivals.last?.sequence, waiting < arrivals.count { reportFrom = highest + 1 }
        late = []
        waitingCount = 0
        firstWaitingArrival = nil
        lastFeedbackAt = now
        let cutoff = now - history
        forget(arrivals.firstIndex { $0.at >= cutoff } ?? arrivals.count)
        return feedback
    }

    /// Messages for `entries` (ascending numbers), the numbers missing before them (from `start`)
    /// and between them as not received.
    private mutating func report(_ entries: ArraySlice<Arrival>, from start: Int64? = nil) -> [TransportFeedback] {
        var messages: [TransportFeedback] = []
        var index = entries.startIndex
        var next = start ?? entries.first?.sequence ?? 0  // the first number not yet in a message
        while index < entries.endIndex {
            if entries[index].sequence - next > Self.maximumReportedGap { next = entries[index].sequence }
            let reference = Int64(entries[index].at.nanoseconds / UInt64(TransportFeedback.referenceTimeUnitNanoseconds))
            var builder = TransportFeedbackBuilder(
                senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, baseSequence: SequenceNumber(extended: UInt64(bitPattern: next)),
                referenceTime: TransportFeedback.referenceTime(wrapping: reference), feedbackPacketCount: feedbackCount,
                maximumBytes: maximumFeedbackBytes)
            // In units of 250 µs; 64 ms is 256 of them.
            var previous = reference * 256
            while index < entries.endIndex {
                let entry = entries[index]
                guard entry.sequence - next <= Self.maximumReportedGap else { break }
                let tick = Int64(entry.at.nanoseconds / UInt64(TransportFeedback.deltaUnitNanoseconds))
                guard let delta = Int16(exactly: tick - previous) else { break }
                while next < entry.sequence, builder.append(.notReceived) { next += 1 }
                guard next == entry.sequence, builder.append(.received(delta: delta)) else { break }
                previous = tick
                next += 1
                index += 1
            }
            messages.append(builder.feedback)
            feedbackCount &+= 1
        }
        return messages
    }

    /// The index of the first arrival numbered `number` or above.
    private func insertionIndex(of number: Int64) -> Int {
        if let last = arrivals.last, last.sequence < number { return arrivals.count }  // the usual case: in order
        var low = 0, high = arrivals.count
        while low < high {
            let middle = (low + high) / 2
            if arrivals[middle].sequence < number { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Drops the first `count` arrivals; their numbers, and all below, are forgotten.
    private mutating func forget(_ count: Int) {
        guard count > 0 else { return }
        heldFrom = arrivals[count - 1].sequence + 1
        arrivals.removeFirst(count)
        reportFrom = max(reportFrom, heldFrom)
        late.removeAll { $0.sequence < heldFrom }
    }
}
