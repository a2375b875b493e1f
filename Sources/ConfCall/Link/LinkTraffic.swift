import ConfCore
import ConfWire

/// What one link has put on the wire, for `link-stats` and for the share of the estimate that
/// audio takes. Counts datagrams as they leave the pacer (sizes as `PacedPacket.wireSize`: RTP
/// with SRTP, no IP or UDP headers). Pure.
struct LinkTraffic: Sendable {
    /// Every byte of RTP sent on the link so far (audio, video, retransmissions, probes).
    private(set) var sentBytes: Int64 = 0
    private var bytesAtLastReport: Int64 = 0
    private var lastReport: Instant?
    /// Bits per second of audio as one-frame (20 ms) packets would carry it, smoothed over about
    /// a second of frames. A packet of several frames (`AudioPacketGatherer`, on a link too weak
    /// for video) counts as if each frame had come in its own packet: the budget for video, and
    /// so the moment it resumes, is what the link would carry once audio went back to 20 ms
    /// packets (else resuming would end the long packets, and the saving with them, and pause
    /// the video again).
    private(set) var audioBitsPerSecond = 0.0

    /// Bytes of RTP received (as datagrams, protected) since `receivedRate` was last asked.
    private var receivedSinceLastRate: Int64 = 0
    private var lastReceivedRateAt: Instant?
    /// Bits per second of RTP received, smoothed over about a second; nil until measured. For
    /// the transport feedback interval.
    private(set) var receivedBitsPerSecond: Double?

    /// When the last RTP packet other than audio came (video, retransmissions, probes).
    private(set) var lastNonAudioArrival: Instant?

    mutating func received(datagramBytes: Int, audio: Bool, at now: Instant) {
        receivedSinceLastRate &+= Int64(datagramBytes)
        if !audio { lastNonAudioArrival = now }
    }

    /// Updates `receivedBitsPerSecond` from what came since the last call, and returns it
    /// (nil on the first call: nothing measured yet).
    mutating func updateReceivedRate(now: Instant) -> Double? {
        defer {
            receivedSinceLastRate = 0
            lastReceivedRateAt = now
        }
        guard let last = lastReceivedRateAt, now > last else { return receivedBitsPerSecond }
        let rate = Double(receivedSinceLastRate) * 8 / (now.since(last).milliseconds / 1000)
        let smoothed = receivedBitsPerSecond.map { $0 + (rate - $0) * 0.3 } ?? rate
        receivedBitsPerSecond = smoothed
        return smoothed
    }

    mutating func sent(_ packet: PacedPacket) {
        sentBytes &+= Int64(packet.wireSize)
        if packet.kind == .audio {
            let frames = max(1, (OpusPacketDuration.samples(in: packet.packet.payload) ?? 960) / 960)
            let payload = packet.packet.payload.count, overhead = packet.wireSize - payload
            // 50 frames a second, each with a packet's headers and its share of the payload.
            let rate = (Double(payload) / Double(frames) + Double(overhead)) * 8 * 50
            for _ in 0..<frames { audioBitsPerSecond += (rate - audioBitsPerSecond) * (audioBitsPerSecond == 0 ? 1 : 0.05) }
        }
    }

    /// Bits per second sent since the previous call (since the first packet, the first time).
    mutating func sentRate(now: Instant) -> Double {
        defer {
            bytesAtLastReport = sentBytes
            lastReport = now
        }
        guard let lastReport, now > lastReport else { return 0 }
        return Double(sentBytes - bytesAtLastReport) * 8 / (now.since(lastReport).milliseconds / 1000)
    }
}
