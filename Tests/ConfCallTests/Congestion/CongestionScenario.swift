import ConfCore
@testable import ConfCall

/// A sender at the link's estimate, paced, over a `SimulatedBottleneck`, with a receiver that
/// sends transport feedback (every 100 ms unless told) back over an uncongested path of the same delay.
/// The sender: 20 ms audio packets of 120 bytes, and 30 fps video whose frames are the target
/// minus audio, cut into packets of at most 1200 bytes. The receiver's clock is 1000 s ahead.
/// Everything runs on a manual clock, stepped from event to event.
struct CongestionScenario {
    struct Packet: Sendable { var size: Int }
    struct Sample { var at: Instant; var target: Int }

    var estimator: LinkBandwidthEstimator
    var pacer: Pacer<Packet>
    var path: SimulatedBottleneck
    var receiverOffset: Duration = .seconds(1000)
    /// Sent as REMB with every feedback when set.
    var receiverEstimate: Int?
    /// How often the receiver sends transport feedback (GStreamer's webrtcbin: with its RTCP,
    /// about every 700 ms).
    var feedbackInterval: Duration = .milliseconds(100)
    /// When set, each interval's feedback goes as several messages of at most this many packets,
    /// arriving together (webrtcbin's: 4-6 packets each, a burst of them every ~900 ms).
    var packetsPerFeedbackMessage: Int?
    private(set) var now = Instant.zero
    private(set) var samples: [Sample] = []
    private(set) var deliveries: [SimulatedBottleneck.Delivery] = []
    /// Bytes that left the pacer.
    private(set) var sentBytes = 0
    private var nextSequence: Int64 = 1
    private var nextToReport: Int64 = 1
    private var nextAudio = Instant.zero
    private var nextVideo = Instant.zero
    private var nextFeedback = Instant.zero + .milliseconds(100)
    private var feedbackInFlight: [(deliverAt: Instant, packets: [PacketFeedback])] = []

    init(capacity: Int, oneWayDelay: Duration = .milliseconds(40), start: Int = 300_000, maximum: Int = 2_500_000,
         loss: Double = 0, seed: UInt64 = 7) {
        var configuration = LinkBandwidthEstimator.Configuration()
        configuration.start = start
        configuration.maximum = maximum
        estimator = LinkBandwidthEstimator(configuration: configuration)
        pacer = Pacer(targetBitsPerSecond: start)
        path = SimulatedBottleneck(capacity: capacity, propagation: oneWayDelay, seed: seed)
        path.loss = loss
    }

    var target: Int { estimator.target }

    /// The lowest and highest target from `from` to the end of the run so far.
    func targets(from: Instant) -> (lowest: Int, highest: Int) {
        let values = samples.filter { $0.at >= from }.map(\.target)
        return (values.min() ?? 0, values.max() ?? 0)
    }

    /// The first moment at or after `from` when the target satisfied `condition`.
    func firstTime(from: Instant, where condition: (Int) -> Bool) -> Instant? {
        samples.first { $0.at >= from && condition($0.target) }?.at
    }

    mutating func run(for duration: Duration) {
        let end = now + duration
        while now < end {
            step()
            let candidates = [nextAudio, nextVideo, nextFeedback, feedbackInFlight.first?.deliverAt, pacer.nextDeadline, end]
            let next = candidates.compactMap { $0 }.min() ?? end
            now = next > now ? next : now + .microseconds(1)
        }
    }

    private mutating func step() {
        if now >= nextAudio {
            pacer.enqueue(Packet(size: 120), size: 120, priority: .audio, now: now)
            nextAudio = nextAudio + .milliseconds(20)
        }
        if now >= nextVideo {
            var frame = max(0, estimator.target - 48_000) / 30 / 8
            while frame > 0 {
                let size = min(1200, frame)
                pacer.enqueue(Packet(size: size), size: size, priority: .video, now: now)
                frame -= size
            }
            nextVideo = nextVideo + .nanoseconds(33_333_333)
        }
        for packet in pacer.poll(now: now) {
            estimator.onSent(sequence: nextSequence, size: packet.size, at: now)
            path.send(sequence: nextSequence, size: packet.size, at: now)
            sentBytes += packet.size
            nextSequence += 1
        }
        if now >= nextFeedback {
            let feedback = receiverFeedback()
            if let most = packetsPerFeedbackMessage, most > 0 {
                for start in stride(from: 0, to: feedback.count, by: most) {
                    feedbackInFlight.append((now + path.propagation, Array(feedback[start..<min(feedback.count, start + most)])))
                }
            } else {
                feedbackInFlight.append((now + path.propagation, feedback))
            }
            nextFeedback = nextFeedback + feedbackInterval
        }
        while let first = feedbackInFlight.first, first.deliverAt <= now {
            feedbackInFlight.removeFirst()
            estimator.onRoundTrip(path.propagation * 2, at: now)
            estimator.onFeedback(first.packets, at: now)
            if let receiverEstimate { estimator.onReceiverEstimate(bitsPerSecond: receiverEstimate, at: now) }
            pacer.setTarget(bitsPerSecond: estimator.target, now: now)
            samples.append(Sample(at: now, target: estimator.target))
        }
    }

    /// Every packet up to the last one that arrived: its arrival on the receiver's clock, or lost.
    private mutating func receiverFeedback() -> [PacketFeedback] {
        var feedback: [PacketFeedback] = []
        for delivery in path.arrived(by: now) {
            while nextToReport < delivery.sequence {
                feedback.append(PacketFeedback(sequence: nextToReport, arrival: nil))
                nextToReport += 1
            }
            feedback.append(PacketFeedback(sequence: delivery.sequence, arrival: delivery.arrival + receiverOffset))
            nextToReport = delivery.sequence + 1
            deliveries.append(delivery)
        }
        return feedback
    }
}
