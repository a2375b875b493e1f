import ConfWire

/// One RTP stream we send to one peer (pion's "local track" binding): its SSRC and payload type,
/// sequence numbers and timestamps that start at random values (RFC 3550 section 5.1) and run on
/// without gaps, the counts a sender report carries, and, for video, the recent packets kept for
/// NACK. Written once for audio and video: encode once, then each peer's stream packetises the
/// same frame with its own numbers. Pure; SRTP is the caller's (`RTPProtector.protect`).
public struct OutboundRTPStream: Sendable {
    /// Which packet carries the RTP marker bit.
    public enum Marker: Sendable, Equatable {
        /// Audio: the first packet of a talkspurt (RFC 3551 section 4.1); conf's audio is one
        /// talkspurt, so the stream's first packet.
        case firstPacket
        /// Video: the last packet of each frame (RFC 7741 section 4.1).
        case lastPacketOfFrame
    }

    public let ssrc: SSRC
    /// Set when negotiation agrees on it; the packets carry the current value.
    public var payloadType: PayloadType
    public let marker: Marker
    public let firstSequence: SequenceNumber
    public private(set) var nextSequence: SequenceNumber
    /// The RTP timestamp of media time zero.
    public let firstTimestamp: UInt32
    /// Media time (clock units since the stream began) where a frame packetised with a duration starts.
    public private(set) var nextMediaTime: UInt32 = 0
    /// Sent so far, for RTCP sender reports (RFC 3550 section 6.4.1: payload octets).
    public private(set) var packetsSent: UInt32 = 0
    public private(set) var octetsSent: UInt32 = 0
    private var history: RetransmissionHistory?

    /// `historyCapacity` packets are kept for retransmission (0: none, as for audio).
    public init<R: RandomNumberGenerator>(ssrc: SSRC, payloadType: PayloadType, marker: Marker, historyCapacity: Int = 0,
                                          random: inout R) {
        self.ssrc = ssrc
        self.payloadType = payloadType
        self.marker = marker
        firstSequence = SequenceNumber.random(using: &random)
        nextSequence = firstSequence
        firstTimestamp = UInt32.random(in: 0...UInt32.max, using: &random)
        history = historyCapacity > 0 ? RetransmissionHistory(capacity: historyCapacity) : nil
    }

    /// The RTP timestamp the next frame packetised with a duration gets.
    public var nextTimestamp: UInt32 { firstTimestamp &+ nextMediaTime }

    /// What a sender report says of this stream; nil before anything was sent.
    public var senderInfo: (packets: UInt32, octets: UInt32, rtpTimestamp: UInt32)? {
        packetsSent > 0 ? (packetsSent, octetsSent, nextTimestamp) : nil
    }

    /// One frame that starts where the previous one ended and lasts `duration` clock units
    /// (audio: 960 for 20 ms at 48 kHz).
    public mutating func packetize(_ payloads: [[UInt8]], duration: UInt32, extensions: RTPHeaderExtensions = [:]) -> [RTPPacket] {
        defer { nextMediaTime &+= duration }
        return packetize(payloads, mediaTime: nextMediaTime, extensions: extensions)
    }

    /// One frame at `mediaTime` clock units since the stream began (video: the frame's capture
    /// index times the frame interval, so that a frame the encoder skipped leaves its time out).
    /// Each payload becomes a packet with the next sequence number; the frame's packets share the
    /// timestamp and `extensions`.
    public mutating func packetize(_ payloads: [[UInt8]], mediaTime: UInt32, extensions: RTPHeaderExtensions = [:]) -> [RTPPacket] {
        let timestamp = firstTimestamp &+ mediaTime
        var packets: [RTPPacket] = []
        packets.reserveCapacity(payloads.count)
        for (index, payload) in payloads.enumerated() {
            let marked = switch marker {
            case .firstPacket: packetsSent == 0
            case .lastPacketOfFrame: index == payloads.count - 1
            }
            let packet = RTPPacket(marker: marked, payloadType: payloadType, sequenceNumber: nextSequence, timestamp: timestamp, ssrc: ssrc,
                                   extensions: extensions, payload: payload)
            nextSequence &+= 1
            packetsSent &+= 1
            octetsSent &+= UInt32(truncatingIfNeeded: payload.count)
            history?.record(packet.sequenceNumber, packet.bytes)
            packets.append(packet)
        }
        return packets
    }

    /// The packets a NACK asks for, as they were first sent (plain RTP), for those still in the
    /// history; a packet evicted or never sent is skipped.
    public func resend(_ sequences: [SequenceNumber]) -> [[UInt8]] {
        guard let history else { return [] }
        return sequences.compactMap { history.packet($0) }
    }
}
