import ConfCore
import ConfSession
import ConfWire

/// One peer's video as we receive it: the shared stream bookkeeping, the VP8 frame assembler, and
/// the feedback that keeps the picture going (RFC 4585): a NACK for packets that went missing, a
/// PLI (a key frame request) when a frame had to be given up or could not be decoded, at most
/// one every `keyFrameRequestInterval` so that a burst of loss does not make the sender encode a
/// key frame per packet. Pure.
public struct InboundVideoStream: Sendable {
    /// The frames a packet completed, oldest first, and the RTCP feedback to send for it.
    public struct Received: Sendable {
        public var frames: [VP8FrameAssembler.Frame] = []
        public var feedback: [RTCPPacket] = []
    }

    /// Our SSRC: the sender of the feedback.
    public let localSSRC: SSRC
    public var keyFrameRequestInterval: Duration = .milliseconds(300)
    public private(set) var rtp = InboundRTPStream(clockRate: 90_000)
    private var assembler = VP8FrameAssembler()
    private var nack = NackTracker()
    private var lastKeyFrameRequest: Instant?

    public init(localSSRC: SSRC) { self.localSSRC = localSSRC }

    /// Frames given up on because a packet never came.
    public var droppedFrames: Int { assembler.droppedFrames }

    /// Waits as long as a resend takes on this path, `roundTrip` (RTCP's, which holds the queues
    /// both ways): a missing packet is asked for again only after a round trip (the first answer
    /// cannot be back sooner), and a frame behind a gap is given up only once the first answer had
    /// time to come, up to `maximumPatience`. A fixed wait shorter than the path's queue makes
    /// every lost packet a given-up frame and a key frame request, and that key frame, sent to
    /// every link at once, fills the queue again. Not two round trips, though that would let the
    /// second request's answer come: every later frame waits behind the gap, and the picture
    /// freezes for seconds.
    public mutating func setRoundTrip(_ roundTrip: Duration) {
        guard roundTrip >= .zero else { return }
        nack.retryAfter = max(NackTracker.minimumRetry, roundTrip + Self.resendMargin)
        assembler.patience = min(Self.maximumPatience, max(VP8FrameAssembler.minimumPatience, roundTrip + Self.resendMargin))
    }

    /// What a resend may take beyond the round trip (the sender's pacer, jitter).
    static let resendMargin: Duration = .milliseconds(50)
    static let maximumPatience: Duration = .milliseconds(600)

    /// Takes a packet of this stream (the caller checked its payload type).
    public mutating func received(_ packet: RTPPacket, now: Instant) -> Received {
        rtp.received(packet, now: now)
        var result = Received()
        let missing = nack.received(packet.sequenceNumber, now: now)
        if !missing.isEmpty { result.feedback.append(.negativeAcknowledgement(sender: localSSRC, media: packet.ssrc, lost: missing)) }
        let droppedBefore = assembler.droppedFrames
        result.frames = assembler.insert(sequence: packet.sequenceNumber, timestamp: packet.timestamp, marker: packet.marker,
                                         payload: packet.payload, now: now)
        if assembler.droppedFrames > droppedBefore, let pli = keyFrameRequest(now: now) { result.feedback.append(pli) }
        return result
    }

    /// A PLI to send because a frame was unusable (lost, or the decoder refused it); nil while the
    /// last one is more recent than `keyFrameRequestInterval`, or before any packet came.
    public mutating func keyFrameRequest(now: Instant) -> RTCPPacket? {
        guard let media = rtp.ssrc else { return nil }
        if let last = lastKeyFrameRequest, now.since(last) < keyFrameRequestInterval { return nil }
        lastKeyFrameRequest = now
        return .pictureLossIndication(sender: localSSRC, media: media)
    }
}
