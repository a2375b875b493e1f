import ConfCore

/// Where a participant's received video goes in its recording, across link restarts: IVF
/// timestamps in 90 kHz ticks, 0 at the first frame, always increasing.
///
/// Within one RTP stream a frame's time follows its RTP timestamp (unwrapped: the 32-bit clock
/// starts anywhere and may wrap). A new stream (a link set up again brings a new SSRC and a new
/// random timestamp base), or a step the wall clock does not bear out (the sender paused its
/// camera, or sends nonsense), continues from the previous frame by the wall time elapsed.
/// Pure: the arrival time is passed in.
public struct VideoRecordingTimeline: Sendable {
    public static let clockRate: UInt64 = 90_000
    /// How far RTP time may run apart from arrival time before arrival time is believed instead.
    public static let tolerance: Duration = .seconds(2)

    private var last: (ssrc: UInt32, rtp: UInt32, ticks: UInt64, arrival: Instant)?

    public init() {}

    /// The recording time of a frame with `rtpTimestamp` from stream `ssrc`, arrived at `now`.
    public mutating func ticks(rtpTimestamp: UInt32, ssrc: UInt32, now: Instant) -> UInt64 {
        guard let last else {
            self.last = (ssrc, rtpTimestamp, 0, now)
            return 0
        }
        let wall = Int64(now.since(last.arrival).nanosecondsClamped / 1_000_000 * Int64(Self.clockRate) / 1000)
        var step = wall
        if ssrc == last.ssrc {
            let rtpStep = Int64(Int32(bitPattern: rtpTimestamp &- last.rtp))
            let tolerance = Int64(Self.tolerance.nanosecondsClamped / 1_000_000) * Int64(Self.clockRate) / 1000
            if abs(rtpStep - wall) <= tolerance { step = rtpStep }
        }
        let ticks = last.ticks + UInt64(max(step, 1))
        self.last = (ssrc, rtpTimestamp, ticks, now)
        return ticks
    }
}

/// Where a participant's received audio goes in its recording: the WAV follows the call's clock,
/// so a gap (a link down and set up again, or frames the playout skipped) is filled with silence
/// and what comes after stays in step with the video. Pure: the frame's playout time is passed in.
public struct AudioRecordingTimeline: Sendable {
    /// Gaps up to this are not filled (the playout clock's own small steps).
    public static let slack: Duration = .milliseconds(60)

    /// The playout time at which the recording ends so far.
    private var end: Instant?

    public init() {}

    /// The silent samples to write before a frame of `samples` played out at `at`.
    public mutating func silenceBefore(frameAt at: Instant, samples: Int) -> Int {
        defer { end = at + .nanoseconds(Int64(samples) * 1_000_000_000 / Int64(AudioFormat.sampleRate)) }
        guard let end, at.since(end) > Self.slack else { return 0 }
        return Int(at.since(end).nanosecondsClamped / 1000 * Int64(AudioFormat.sampleRate) / 1_000_000)
    }
}
