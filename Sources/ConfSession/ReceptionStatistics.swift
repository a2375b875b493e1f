import ConfCore
import ConfWire

/// What RTCP reports about one received RTP stream (RFC 3550 section 6.4.1 and appendix A.3, A.8):
/// packets lost (cumulative and the fraction since the last report), the extended highest
/// sequence number, and the interarrival jitter in timestamp units.
public struct ReceptionStatistics: Sendable {
    public let ssrc: SSRC
    public let clockRate: Double
    private var unwrapper = SequenceUnwrapper()
    private var base: UInt64?
    private var highest: UInt64 = 0
    private var received: UInt64 = 0
    private var expectedPrior: UInt64 = 0
    private var receivedPrior: UInt64 = 0
    private var lastTransit: Double?
    /// In timestamp units.
    public private(set) var jitter: Double = 0

    public init(ssrc: SSRC, clockRate: Double = 48_000) {
        self.ssrc = ssrc
        self.clockRate = clockRate
    }

    public var jitterMilliseconds: Double { jitter / clockRate * 1000 }
    public var expected: UInt64 { base.map { highest - $0 + 1 } ?? 0 }
    public var cumulativeLost: Int64 { Int64(expected) - Int64(received) }

    public mutating func update(sequence: SequenceNumber, timestamp: UInt32, arrival: Instant) {
        let extended = unwrapper.unwrap(sequence)
        if base == nil { base = extended; highest = extended }
        if extended > highest { highest = extended }
        received += 1
        // Transit in timestamp units; jitter is the smoothed difference between packets (A.8).
        let transit = Double(arrival.nanoseconds) / 1e9 * clockRate - Double(timestamp)
        if let lastTransit {
            var d = abs(transit - lastTransit)
            if d > clockRate * 1000 { d = 0 }  // a timestamp wrap: skip
            jitter += (d - jitter) / 16
        }
        lastTransit = transit
    }

    /// A report block for this stream, with the round-trip fields filled in by the caller; moves
    /// the "since last report" window.
    public mutating func reportBlock(lastSR: UInt32, delaySinceLastSR: UInt32) -> RTCPPacket.ReportBlock {
        let expectedInterval = expected - expectedPrior
        let receivedInterval = received - receivedPrior
        expectedPrior = expected
        receivedPrior = received
        let lostInterval = Int64(expectedInterval) - Int64(receivedInterval)
        let fraction = expectedInterval == 0 || lostInterval <= 0 ? 0 : UInt8(min(255, (lostInterval << 8) / Int64(expectedInterval)))
        let cumulative = UInt32(truncatingIfNeeded: max(-0x80_0000, min(0x7F_FFFF, cumulativeLost))) & 0xFF_FFFF
        return RTCPPacket.ReportBlock(ssrc: ssrc, fractionLost: fraction, cumulativeLost: cumulative,
                                      highestSequence: UInt32(truncatingIfNeeded: highest), jitter: UInt32(jitter),
                                      lastSR: lastSR, delaySinceLastSR: delaySinceLastSR)
    }
}
