/// A transport-wide congestion control feedback message
/// (draft-holmer-rmcat-transport-wide-cc-extensions-01 section 3.1: RTCP RTPFB, PT 205, FMT 15):
/// which packets of a transport, by their `TransportSequenceNumber`, arrived at the receiver and
/// when, on the receiver's clock.
///
/// Users see packets, never chunks: `packets[i]` is the result for sequence number
/// `baseSequence &+ i`. The wire's packet chunks are chosen by the serializer
/// (`TransportFeedback+Serialize.swift`) and decoded by the parser (`+Parse.swift`).
///
/// Times: `referenceTime` is the receiver's clock in units of 64 ms (24-bit signed, so it wraps);
/// the first received packet's `delta` counts from it, every later one from the packet received
/// before it, in units of 250 µs. Only differences between arrival times mean anything to the
/// sender: `arrivals(unwrappedBase:reference:)` turns them into `Instant`s.
public struct TransportFeedback: Equatable, Sendable {
    /// What became of one packet.
    public enum PacketResult: Equatable, Sendable {
        case notReceived
        /// Arrived `delta` × 250 µs after the previous received packet of this feedback (or after
        /// the reference time, for the first one). A delta of 0...255 travels in one byte, any
        /// other (negative ones: reordering) in two.
        case received(delta: Int16)

        public var isReceived: Bool { self != .notReceived }
    }

    /// The unit of `PacketResult.received(delta:)`, in nanoseconds.
    public static let deltaUnitNanoseconds: Int64 = 250_000
    /// The unit of `referenceTime`, in nanoseconds.
    public static let referenceTimeUnitNanoseconds: Int64 = 64_000_000
    /// The most packets one feedback can describe: the 16-bit packet status count.
    public static let maximumPacketCount = 0xFFFF

    public var senderSSRC: SSRC
    /// The draft leaves it unused for transport-wide feedback; libwebrtc puts the SSRC of one of
    /// the media streams it received.
    public var mediaSSRC: SSRC
    public var baseSequence: SequenceNumber
    /// The receiver's clock in units of 64 ms, -2^23 ... 2^23 - 1 (the wire's 24-bit signed
    /// field; values outside are sent modulo 2^24).
    public var referenceTime: Int32
    /// Counts the feedback messages a receiver sends (modulo 256), so that the sender can tell a
    /// lost feedback from a quiet interval.
    public var feedbackPacketCount: UInt8
    /// One result per sequence number from `baseSequence`; at most `maximumPacketCount` are sent.
    public var packets: [PacketResult]

    public init(senderSSRC: SSRC, mediaSSRC: SSRC, baseSequence: SequenceNumber, referenceTime: Int32, feedbackPacketCount: UInt8,
                packets: [PacketResult]) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.baseSequence = baseSequence
        self.referenceTime = referenceTime
        self.feedbackPacketCount = feedbackPacketCount
        self.packets = packets
    }

    /// `value` as the wire's 24-bit two's complement field reads it back: -2^23 ... 2^23 - 1.
    public static func referenceTime(wrapping value: Int64) -> Int32 {
        Int32(truncatingIfNeeded: (value << 40) >> 40)
    }
}
