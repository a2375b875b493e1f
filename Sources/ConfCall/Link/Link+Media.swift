import ConfCore
import ConfSession
import ConfWire

/// The link's media streams: our audio packetised and paced to the peer, our video resent on its
/// NACKs; the peer's audio into a jitter buffer and played out on a 20 ms cadence, its video
/// into frames with NACK and PLI. What comes out for the driver (frames, audio to play) and
/// what goes to the peer waits in the outbox.
extension Link {
    /// What became of an audio packet from the peer.
    enum AudioArrival: Equatable {
        case queued
        /// Not whole 20 ms frames: conf cannot play it; `first` the first such packet.
        case unplayable(first: Bool)
    }

    // MARK: Sending

    /// Our Opus frame (nil while muted: what was gathered leaves now, not after the mute) for
    /// `audio`, the negotiated section; packets leave through the pacer at once.
    func sendAudio(_ opus: [UInt8]?, level: UInt8, audio: NegotiatedMedia, now: Instant) {
        let ready = if let opus { audioPackets.add(opus, level: level) } else { audioPackets.flush() }
        for packet in ready {
            let audioLevel = AudioLevel(voiceActivity: packet.level < 50, level: packet.level).bytes
            let extensions: RTPHeaderExtensions = audio.audioLevelExtension.map { [$0: audioLevel] } ?? [:]
            audioOut.payloadType = audio.payloadType
            // The RTP clock advances by what the packet plays (RFC 7587 section 4.1: 48 kHz).
            let packets = audioOut.packetize([packet.opus], duration: packet.samples, extensions: extensions)
            enqueue(packets, .audio, transportSequenceID: transportSequenceID(audio), now: now)
        }
    }

    /// A peer's NACK: those packets again from the history, if still in it, behind audio and
    /// ahead of new video in the pacer, each with a transport sequence number of its own; as
    /// many as `RetransmissionLimiter` lets through.
    func resendVideo(_ sequences: [SequenceNumber], now: Instant) {
        let id = transportSequenceID(negotiated?.video)
        let roundTrip = congestion.estimator.roundTrip, target = congestion.target
        for packet in videoOut.resend(sequences).compactMap(RTPPacket.init(bytes:)) {
            let paced = PacedPacket(packet: packet, kind: .retransmission, transportSequenceID: id, srtpTagBytes: srtpTagBytes)
            guard retransmissions.allow(packet.sequenceNumber, bytes: paced.wireSize, now: now, roundTrip: roundTrip,
                                        targetBitsPerSecond: target) else { continue }
            congestion.enqueue(paced, size: paced.wireSize, priority: paced.priority, now: now)
        }
        pumpPacer(now: now)
    }

    // MARK: Receiving

    /// A packet of the peer's audio, into the jitter buffer; playout starts with the first.
    func receiveAudio(_ packet: RTPPacket, now: Instant) -> AudioArrival {
        // Mutated where it lives: a copy taken out and written back would copy the jitter
        // buffer's storage on every packet.
        if audioIn == nil { audioIn = InboundAudioStream() }
        guard audioIn!.received(packet, now: now) != nil else { return .unplayable(first: audioIn!.otherLengthPackets == 1) }
        if audioPlayoutAt == nil { audioPlayoutAt = now }
        return .queued
    }

    /// A packet of the peer's video: the frames it completes to the outbox for the driver, a
    /// NACK for what went missing and a PLI (rate-limited by the stream) for a frame given up to
    /// the peer.
    func receiveVideo(_ packet: RTPPacket, now: Instant) {
        if videoIn == nil {
            videoIn = InboundVideoStream(localSSRC: audioSSRC)
            if let roundTrip = meter.latest { videoIn!.setRoundTrip(roundTrip) }
        }
        let received = videoIn!.received(packet, now: now)  // in place, as for audio
        for feedback in received.feedback { sendRTCP(feedback) }
        for frame in received.frames { outbox.append(.video(id, frame, ssrc: packet.ssrc.rawValue)) }
    }

    /// PLI (the driver's decoder could not use a frame), at most one each 300 ms.
    func requestKeyFrame(now: Instant) {
        guard let request = videoIn?.keyFrameRequest(now: now) else { return }
        sendRTCP(request)
    }

    /// A playout tick this far behind its frame's turn was held up by our own loop (a driver's
    /// timer fires within its 5 ms slot).
    static let lateAudioTick: Duration = .milliseconds(10)
    /// How long such a tick waits for what the driver has queued before it conceals (the
    /// driver's timer slot may add up to 5 ms).
    static let lateAudioTickGrace: Duration = .milliseconds(2)
    static let audioFrameDuration: Duration = .milliseconds(20)

    /// When playout is next due (a deferred wait's end first).
    var nextPlayout: Instant? { audioWaitDeferredUntil ?? audioPlayoutAt }

    /// Audio due for playout on a 20 ms cadence from the first packet (late calls catch up), to
    /// the outbox for the driver.
    ///
    /// A late tick that finds nothing to play defers its wait: our own loop was held up, and the
    /// packets that came meanwhile may still be in the socket, behind the timer. Until a timer
    /// at `audioWaitDeferredUntil` or later, playout only plays (each datagram the driver hands
    /// in services its link), and never conceals; then it goes on as usual:
    ///
    ///     on time ──late tick, nothing here──▶ deferred ──timer at the deferral's end──▶ on time
    ///        ▲                                    │   (conceals what is still missing)
    ///        └──────caught up (next turn ahead)───┘
    func playOut(now: Instant, afterDatagram: Bool = false) {
        guard audioIn != nil, var due = audioPlayoutAt, now >= due else { return }
        let lateTick = now.since(due) >= Self.lateAudioTick  // measured before a long hold's reset below
        if now.since(due) > .milliseconds(200) { due = now }
        let deferral = audioWaitDeferredUntil
        let deferring = deferral.map { afterDatagram || now < $0 } ?? false
        while now >= due {
            if audioIn!.wouldWait {
                if deferring { break }
                if deferral == nil, lateTick {
                    audioWaitDeferredUntil = now + Self.lateAudioTickGrace
                    break
                }
            }
            switch audioIn!.pop(now: due) {  // in place, as in receiveAudio
            case .waiting: break
            case .frame(let payload): outbox.append(.audio(id, .frame(payload), muted: locallyMuted))
            case .continuation: outbox.append(.audio(id, .continuation, muted: locallyMuted))
            case .lost(let next): outbox.append(.audio(id, .lost(next: next), muted: locallyMuted))
            }
            due = due + Self.audioFrameDuration
        }
        audioPlayoutAt = due
        if deferral != nil, !deferring || now < due { audioWaitDeferredUntil = nil }
    }
}
