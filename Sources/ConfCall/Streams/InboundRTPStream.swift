import ConfCore
import ConfSession
import ConfWire

/// What every RTP stream we receive keeps, whatever its media: the sender's SSRC, the RFC 3550
/// reception statistics its report blocks carry, and the payload bytes that came. A new SSRC
/// (the peer set its stream up again) starts the statistics over. The audio and video streams
/// (`InboundAudioStream`, `InboundVideoStream`) are this plus their jitter buffer or frame
/// assembler. Pure.
public struct InboundRTPStream: Sendable {
    public let clockRate: Double
    /// For RTCP receiver reports (the meter moves its "since the last report" window).
    public var reception: ReceptionStatistics?
    public private(set) var payloadBytes = 0

    public init(clockRate: Double) { self.clockRate = clockRate }

    public var ssrc: SSRC? { reception?.ssrc }

    public mutating func received(_ packet: RTPPacket, now: Instant) {
        if reception?.ssrc != packet.ssrc { reception = ReceptionStatistics(ssrc: packet.ssrc, clockRate: clockRate) }
        reception?.update(sequence: packet.sequenceNumber, timestamp: packet.timestamp, arrival: now)
        payloadBytes += packet.payload.count
    }
}
