import ConfCore

/// An adaptive jitter buffer for one remote participant's audio (20 ms Opus frames), without I/O
/// or a clock of its own: packets go in with their arrival time; the playout clock takes one frame
/// every 20 ms with `pop(now:)`.
///
/// - Reorders by sequence number; drops duplicates and packets whose turn has passed (counted).
/// - A packet may hold several frames (Opus of 40 to 120 ms, RFC 7587): it plays at its turn,
///   and the pops for its later frames say `.continuation`; a lost one is concealed for as many
///   frames as the stream's packets hold.
/// - Target delay follows the measured jitter: the spread (95th percentile minus minimum) of the
///   packets' transit times over the last few seconds, plus one frame; between `minimumDelay`
///   and `maximumDelay`. On a clean link that is one or two frames.
/// - A missing frame whose successors have arrived is lost: `pop` says so, handing over the next
///   packet so its in-band FEC can recover it (Opus), else the decoder conceals.
/// - When nothing newer has arrived (the network stalled, or the sender's clock is slower than
///   ours) `pop` conceals without moving on, which adds a frame of delay; when every packet of the
///   last few seconds came early enough to play a frame sooner (two while a wait is recent:
///   stalls passed, a burst drained, or the sender's clock is faster) a quiet frame is skipped
///   (`PlayoutSlack`). So waits do not add up over a call, clock drift never grows the delay,
///   and the sound card never starves.
public struct AudioJitterBuffer: Sendable {
    public enum Playout: Equatable, Sendable {
        /// Nothing to play yet (before the first packet, or while filling up to the target).
        case waiting
        case frame([UInt8])
        /// The next 20 ms of the packet `.frame` gave (one of several frames).
        case continuation
        /// This frame is missing: conceal it, recovering from `next` (the following packet) when given.
        case lost(next: [UInt8]?)
    }

    public enum Insert: Equatable, Sendable { case accepted, duplicate, late }

    public struct Statistics: Equatable, Sendable {
        public var received = 0
        public var duplicates = 0
        public var late = 0
        /// Frames played from a packet.
        public var played = 0
        /// Frames concealed (lost, or stretched while waiting).
        public var concealed = 0
        /// Frames concealed because a packet never came (its successors did).
        public var lost = 0
        /// Frames dropped because every recent packet came early enough (a wait given back, a
        /// burst drained, a sender's clock faster than ours).
        public var skipped = 0

        public init() {}
    }

    public let frameDuration: Duration
    public let samplesPerFrame: UInt32
    public let minimumDelay: Duration
    public let maximumDelay: Duration
    public private(set) var statistics = Statistics()

    private var unwrapper = SequenceUnwrapper()
    private var packets: [UInt64: (payload: [UInt8], frames: Int, arrival: Instant)] = [:]
    /// Frames the stream's packets hold (the last one's): how long a missing packet is concealed.
    private var framesPerPacket = 1
    /// Pops still owed to the packet that played last (`.continuation`) or to one that was lost.
    private var continuationsLeft = 0
    private var concealmentsLeft = 0
    private var next: UInt64?
    private var highest: UInt64?
    private var started = false
    private var firstArrival: Instant?
    /// Recent (arrival - media time) in ms, for the jitter estimate.
    private var transits: [Double] = []
    private var transitsSinceTarget = 0
    private var transitOrigin: (arrival: Instant, timestamp: UInt64)?
    private var timestampUnwrap: (last: UInt32, high: UInt64)?
    private var slack: PlayoutSlack
    private var stretches = 0

    public init(frameDuration: Duration = .milliseconds(20), samplesPerFrame: UInt32 = 960,
                minimumDelay: Duration = .milliseconds(20), maximumDelay: Duration = .milliseconds(400)) {
        self.frameDuration = frameDuration
        self.samplesPerFrame = samplesPerFrame
        self.minimumDelay = minimumDelay
        self.maximumDelay = maximumDelay
        slack = PlayoutSlack(frameDuration: frameDuration)
        targetDelay = max(minimumDelay, frameDuration * 2)
    }

    /// Frames between what plays next and the newest packet: how far ahead the buffer is.
    public var bufferedFrames: Int {
        guard let next, let highest, highest >= next else { return continuationsLeft }
        return (Int(highest - next) + 1) * framesPerPacket + continuationsLeft
    }

    /// Whether `pop` would now wait for a packet that has not come: playing, nothing owed to the
    /// last packet, the next one missing and nothing newer here.
    public var wouldWait: Bool {
        guard started, continuationsLeft == 0, concealmentsLeft == 0, let next, packets[next] == nil else { return false }
        return highest.map { $0 <= next } ?? true
    }

    /// The delay this buffer aims for, from the jitter it has seen (recomputed every 10 packets).
    public private(set) var targetDelay: Duration = .milliseconds(40)

    /// The spread of recent transit times (95th percentile minus minimum, ms): what a skip keeps
    /// in hand beyond the latest packet of the last seconds (`PlayoutSlack`).
    private var jitterSpread = 0.0

    private mutating func updateTargetDelay() {
        let frame = frameDuration.milliseconds
        guard transits.count >= 10 else {
            targetDelay = max(minimumDelay, frameDuration * 2)
            return
        }
        let sorted = transits.sorted()
        jitterSpread = sorted[Int(Double(sorted.count - 1) * 0.95)] - sorted[0]
        let frames = (jitterSpread / frame).rounded(.up) + 1
        targetDelay = min(maximumDelay, max(minimumDelay, .milliseconds(Int64(frames * frame))))
    }

    var targetFrames: Int { max(1, Int((targetDelay.milliseconds / frameDuration.milliseconds).rounded())) }

    /// `frames`: how many frame durations the packet plays (1...6 for 20 ms frames of Opus).
    @discardableResult
    public mutating func insert(sequence: SequenceNumber, timestamp: UInt32, payload: [UInt8], frames: Int = 1, arrival: Instant) -> Insert {
        let extended = unwrapper.unwrap(sequence)
        if started, let next, extended < next {
            statistics.late += 1
            return .late
        }
        guard packets[extended] == nil else {
            statistics.duplicates += 1
            return .duplicate
        }
        // A jump far ahead (the sender restarted, or garbage that authenticated): start over.
        if let next, extended > next + 500 {
            packets.removeAll()
            self.next = nil
            highest = nil
            started = false
            firstArrival = nil
            slack.reset()
            // The new stream's timestamps have another origin: its jitter is measured afresh.
            transits.removeAll()
            transitOrigin = nil
            timestampUnwrap = nil
            jitterSpread = 0
        }
        statistics.received += 1
        let frames = max(1, frames)
        packets[extended] = (payload, frames, arrival)
        framesPerPacket = frames
        if highest.map({ extended > $0 }) ?? true { highest = extended }
        if next == nil { next = extended }
        if !started, let next, extended < next { self.next = extended }
        if firstArrival == nil { firstArrival = arrival }
        recordTransit(timestamp: timestamp, arrival: arrival)
        return .accepted
    }

    public mutating func pop(now: Instant) -> Playout {
        guard let current = next else { return .waiting }
        if !started {
            // Fill up to the target before the first frame plays.
            guard let first = firstArrival, now.since(first) >= targetDelay - frameDuration || bufferedFrames >= targetFrames else {
                return .waiting
            }
            started = true
        }
        if continuationsLeft > 0 {
            continuationsLeft -= 1
            statistics.played += 1
            return .continuation
        }
        if concealmentsLeft > 0 {
            concealmentsLeft -= 1
            statistics.concealed += 1
            statistics.lost += 1
            return .lost(next: nil)
        }
        if let packet = packets.removeValue(forKey: current) {
            next = current + 1
            stretches = 0
            statistics.played += 1
            continuationsLeft = packet.frames - 1
            slack.played(arrival: packet.arrival, size: packet.payload.count, now: now)
            skipIfEarly(now: now)
            return .frame(packet.payload)
        }
        statistics.concealed += 1
        if let highest, highest > current {
            // Its successors came and it did not: lost. Move on, offering the next for FEC.
            next = current + 1
            stretches = 0
            statistics.lost += 1
            slack.lost(now: now)
            concealmentsLeft = framesPerPacket - 1
            // Opus's in-band FEC rebuilds the 20 ms just before the packet carrying it: the lost
            // packet's last frame, not this one, when packets hold several.
            return .lost(next: framesPerPacket == 1 ? packets[current + 1]?.payload : nil)
        }
        // Nothing newer yet: wait (stretch) rather than move past packets that are only late,
        // but not forever.
        stretches += 1
        slack.waited(now: now)
        if stretches > Int(maximumDelay.milliseconds / frameDuration.milliseconds) {
            next = current + 1
            stretches = 0
        }
        return .lost(next: nil)
    }

    /// Skips the packet after the one now playing when the recent packets all came a frame early.
    private mutating func skipIfEarly(now: Instant) {
        guard let following = next, let packet = packets[following],
              slack.shouldSkip(frames: packet.frames, size: packet.payload.count,
                                 marginMilliseconds: min(jitterSpread, (maximumDelay - frameDuration).milliseconds), now: now) else { return }
        packets.removeValue(forKey: following)
        next = following + 1
        statistics.skipped += 1
        slack.skipped(frames: packet.frames, now: now)
    }

    private mutating func recordTransit(timestamp: UInt32, arrival: Instant) {
        // Unwrap the 32-bit RTP timestamp.
        let extended: UInt64
        if let (last, high) = timestampUnwrap {
            let delta = Int64(Int32(bitPattern: timestamp &- last))
            extended = UInt64(max(0, Int64(high) + delta))
            timestampUnwrap = (timestamp, max(high, extended))
        } else {
            extended = 1 << 32
            timestampUnwrap = (timestamp, extended)
        }
        if transitOrigin == nil { transitOrigin = (arrival, extended) }
        guard let origin = transitOrigin else { return }
        let mediaMs = (Double(extended) - Double(origin.timestamp)) * frameDuration.milliseconds / Double(samplesPerFrame)
        let arrivalMs = arrival.since(origin.arrival).milliseconds
        transits.append(arrivalMs - mediaMs)
        if transits.count > 150 { transits.removeFirst(transits.count - 150) }  // about 3 s
        transitsSinceTarget += 1
        if transitsSinceTarget >= 10 || transits.count < 10 {
            transitsSinceTarget = 0
            updateTargetDelay()
        }
    }
}
