import ConfCore
import ConfWire

/// Which of the packets a NACK asks for go out again, as libwebrtc decides it: not one that was
/// resent less than a round trip ago (the resend may still be on its way, and the receiver asks
/// again each round trip), and not more than `shareOfTarget` of the link's target in resends over
/// the last `window`. On a path that drops because it is full, unbounded resends are what keeps
/// it full: every loss asks for more sending. Pure; time is passed in.
struct RetransmissionLimiter: Sendable {
    var window: Duration = .milliseconds(500)
    var shareOfTarget = 0.5
    var minimumInterval: Duration = .milliseconds(10)

    private var sent = FIFOQueue<(at: Instant, bytes: Int)>()
    private var sentBytes = 0
    private var lastResent: [SequenceNumber: Instant] = [:]

    /// Bits per second resent over the last `window` (what went out within it, as a rate).
    mutating func resentBitsPerSecond(now: Instant) -> Double {
        forgetOld(now: now)
        return Double(sentBytes) * 8 / (window.milliseconds / 1000)
    }

    private mutating func forgetOld(now: Instant) {
        while let oldest = sent.first, now.since(oldest.at) > window {
            sentBytes -= oldest.bytes
            sent.popFirst()
        }
    }

    /// Whether `sequence` (`bytes` on the wire) may be resent now; if so it is counted as resent.
    mutating func allow(_ sequence: SequenceNumber, bytes: Int, now: Instant, roundTrip: Duration?, targetBitsPerSecond: Int) -> Bool {
        forgetOld(now: now)
        let interval = max(minimumInterval, roundTrip ?? minimumInterval)
        if let last = lastResent[sequence], now.since(last) < interval { return false }
        let budget = Double(targetBitsPerSecond) / 8 * shareOfTarget * window.milliseconds / 1000
        guard Double(sentBytes + bytes) <= budget else { return false }
        sent.append((now, bytes))
        sentBytes += bytes
        lastResent[sequence] = now
        if lastResent.count > 2_048 { lastResent = lastResent.filter { now.since($0.value) < .seconds(2) } }
        return true
    }
}
