import ConfCore
import ConfSession
import ConfWire

/// One peer's audio as we receive it: the shared stream bookkeeping and the adaptive jitter
/// buffer the playout clock pops 20 ms frames from, plus the figures `audio-stats` reports. Pure.
public struct InboundAudioStream: Sendable {
    /// What `audio-stats` says of one peer's audio, over the time since the previous report.
    public struct Report: Equatable, Sendable {
        public var kbps: Double
        public var lossPercent: Double
        public var jitterMilliseconds: Double
        public var bufferMilliseconds: Double
        public var targetMilliseconds: Double
        public var concealedMilliseconds: Double
        public var skippedMilliseconds: Double
    }

    public private(set) var rtp = InboundRTPStream(clockRate: 48_000)
    public private(set) var buffer: AudioJitterBuffer
    /// Packets left out of the buffer because they are not a whole number of 20 ms frames (10 ms
    /// or shorter Opus frames, which conf's `minptime=20` asks peers not to send; or a malformed
    /// TOC), and the length in samples (48 kHz) of the last one, nil when it was malformed.
    public private(set) var otherLengthPackets = 0
    public private(set) var lastOtherLength: Int?
    /// Where the current report window began: when, the buffer's counts then, payload bytes then.
    private var lastReport: (at: Instant, statistics: AudioJitterBuffer.Statistics, bytes: Int)?

    public init(buffer: AudioJitterBuffer = AudioJitterBuffer()) { self.buffer = buffer }

    /// For RTCP receiver reports.
    public var reception: ReceptionStatistics? {
        get { rtp.reception }
        set { rtp.reception = newValue }
    }

    /// Takes a packet of this stream (the caller checked its payload type): 20 to 120 ms of Opus,
    /// played a frame a pop. Nil when it was left out because it is not a whole number of
    /// frames (it still counts as received for RTCP).
    @discardableResult
    public mutating func received(_ packet: RTPPacket, now: Instant) -> AudioJitterBuffer.Insert? {
        if lastReport == nil { lastReport = (now, buffer.statistics, rtp.payloadBytes) }
        let length = OpusPacketDuration.samples(in: packet.payload)
        let frame = Int(buffer.samplesPerFrame)
        guard let length, length % frame == 0 else {
            otherLengthPackets += 1
            lastOtherLength = length
            rtp.received(packet, now: now)
            return nil
        }
        let outcome = buffer.insert(sequence: packet.sequenceNumber, timestamp: packet.timestamp, payload: packet.payload,
                                    frames: length / frame, arrival: now)
        rtp.received(packet, now: now)
        return outcome
    }

    /// The frame the playout clock takes at `now` (every 20 ms).
    public mutating func pop(now: Instant) -> AudioJitterBuffer.Playout { buffer.pop(now: now) }

    /// Whether the next pop would wait for a packet that has not come (`AudioJitterBuffer.wouldWait`).
    public var wouldWait: Bool { buffer.wouldWait }

    /// The figures since the previous call (or the first packet), and a new window from `now`.
    public mutating func report(now: Instant) -> Report {
        let current = buffer.statistics
        let seconds = lastReport.map { now.since($0.at).milliseconds / 1000 } ?? 0
        let played = current.played - (lastReport?.statistics.played ?? 0)
        let lost = current.lost - (lastReport?.statistics.lost ?? 0)
        let concealed = current.concealed - (lastReport?.statistics.concealed ?? 0)
        let skipped = current.skipped - (lastReport?.statistics.skipped ?? 0)
        let bytes = rtp.payloadBytes - (lastReport?.bytes ?? 0)
        lastReport = (now, current, rtp.payloadBytes)
        return Report(kbps: seconds > 0 ? Double(bytes) * 8 / seconds / 1000 : 0,
                      lossPercent: played + lost > 0 ? Double(lost) * 100 / Double(played + lost) : 0,
                      jitterMilliseconds: rtp.reception?.jitterMilliseconds ?? 0,
                      bufferMilliseconds: Double(buffer.bufferedFrames) * buffer.frameDuration.milliseconds,
                      targetMilliseconds: buffer.targetDelay.milliseconds,
                      concealedMilliseconds: Double(concealed) * buffer.frameDuration.milliseconds,
                      skippedMilliseconds: Double(skipped) * buffer.frameDuration.milliseconds)
    }
}
