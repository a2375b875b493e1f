import ConfCore
import ConfSession
import ConfWire

/// Audio and video through each link's RTP streams: encode once (the driver), packetise and
/// protect per peer; per peer, a jitter buffer or frame assembler, NACK and PLI.
extension CallEngine {
    // MARK: Sending

    func sendAudio(_ opus: [UInt8]?, level: UInt8, now: Instant) {
        let heard = audioMuted ? 127 : level
        ownLevel = level
        if let change = selfTalking.update(level: heard, now: now) {
            if let me { outputs.append(.event(.talking(.you(me), talking: change))) }
        }
        if audioMuted, mutedTalking.update(level: level, now: now) == true,
           lastMutedTalkingHint.map({ now.since($0) >= Self.mutedTalkingHintInterval }) ?? true {
            lastMutedTalkingHint = now
            outputs.append(.event(.talkingWhileMuted))
        }
        guard configuration.sendsAudio else { return }
        for link in linksInOrder where link.phase == .connected {
            guard let audio = link.negotiated?.audio, audio.sends, link.srtp != nil else { continue }
            // Muted: what a link had gathered leaves now, not after the mute.
            let ready = if let opus, !audioMuted { link.audioPackets.add(opus, level: level) } else { link.audioPackets.flush() }
            for packet in ready {
                let audioLevel = AudioLevel(voiceActivity: packet.level < 50, level: packet.level).bytes
                let extensions: RTPHeaderExtensions = audio.audioLevelExtension.map { [$0: audioLevel] } ?? [:]
                link.audioOut.payloadType = audio.payloadType
                // The RTP clock advances by what the packet plays (RFC 7587 section 4.1: 48 kHz).
                let packets = link.audioOut.packetize([packet.opus], duration: packet.samples, extensions: extensions)
                enqueue(packets, .audio, on: link, transportSequenceID: link.transportSequenceID(audio), now: now)
            }
        }
    }

    /// A peer's NACK: those packets again from the history, if still in it, behind audio and
    /// ahead of new video in the pacer, each with a transport sequence number of its own; as
    /// many as `RetransmissionLimiter` lets through.
    func resendVideo(_ sequences: [SequenceNumber], on link: Link, now: Instant) {
        let id = link.transportSequenceID(link.negotiated?.video)
        let roundTrip = link.congestion.estimator.roundTrip, target = link.congestion.target
        for packet in link.videoOut.resend(sequences).compactMap(RTPPacket.init(bytes:)) {
            let paced = PacedPacket(packet: packet, kind: .retransmission, transportSequenceID: id, srtpTagBytes: link.srtpTagBytes)
            guard link.retransmissions.allow(packet.sequenceNumber, bytes: paced.wireSize, now: now, roundTrip: roundTrip,
                                             targetBitsPerSecond: target) else { continue }
            link.congestion.enqueue(paced, size: paced.wireSize, priority: paced.priority, now: now)
        }
        pumpPacer(link, now: now)
    }

    // MARK: Receiving

    func receivedRTP(_ packet: RTPPacket, on link: Link, now: Instant) {
        guard let negotiated = link.negotiated else { return }
        if let video = negotiated.video, packet.payloadType == video.payloadType {
            guard configuration.receivesVideo, video.receives else { return }
            receivedVideo(packet, on: link, now: now)
        } else if let audio = negotiated.audio, packet.payloadType == audio.payloadType {
            guard configuration.receivesAudio, audio.receives else { return }
            // Mutated where it lives: a copy taken out and written back would copy the jitter
            // buffer's storage on every packet.
            if link.audioIn == nil { link.audioIn = InboundAudioStream() }
            guard link.audioIn!.received(packet, now: now) != nil else {
                if link.audioIn!.otherLengthPackets == 1 { reportAudioPacketLength(link) }
                return
            }
            if link.audioPlayoutAt == nil { link.audioPlayoutAt = now }
        }
    }

    /// Once per link: the peer's audio packets are not whole 20 ms frames, so conf cannot play them.
    private func reportAudioPacketLength(_ link: Link) {
        outputs.append(.note(.unplayableAudio(link.peer, milliseconds: link.audioIn?.lastOtherLength.map { Double($0) / 48 })))
    }

    private func receivedVideo(_ packet: RTPPacket, on link: Link, now: Instant) {
        if link.videoIn == nil {
            link.videoIn = InboundVideoStream(localSSRC: link.audioSSRC)
            if let roundTrip = link.meter.latest { link.videoIn!.setRoundTrip(roundTrip) }
        }
        let received = link.videoIn!.received(packet, now: now)  // in place, as for audio
        // NACK for what went missing; PLI (rate-limited by the stream) for a frame given up.
        for feedback in received.feedback { send(feedback, on: link) }
        for frame in received.frames { outputs.append(.video(link.id, frame, ssrc: packet.ssrc.rawValue)) }
    }

    /// PLI (the driver's decoder could not use a frame), at most one each 300 ms per link.
    func requestKeyFrame(on link: Link, now: Instant) {
        guard let request = link.videoIn?.keyFrameRequest(now: now) else { return }
        send(request, on: link)
    }

    /// A playout tick this far behind its frame's turn was held up by our own loop (a driver's
    /// timer fires within its 5 ms slot).
    static let lateAudioTick: Duration = .milliseconds(10)
    /// How long such a tick waits for what the driver has queued before it conceals (the
    /// driver's timer slot may add up to 5 ms).
    static let lateAudioTickGrace: Duration = .milliseconds(2)

    /// Audio due for playout on a 20 ms cadence from the first packet (late calls catch up).
    ///
    /// A late tick that finds nothing to play defers its wait: our own loop was held up, and the
    /// packets that came meanwhile may still be in the socket, behind the timer. Until a timer
    /// at `audioWaitDeferredUntil` or later, playout only plays (each datagram the driver hands
    /// in services its link), and never conceals; then it goes on as usual:
    ///
    ///     on time ──late tick, nothing here──▶ deferred ──timer at the deferral's end──▶ on time
    ///        ▲                                    │   (conceals what is still missing)
    ///        └──────caught up (next turn ahead)───┘
    func playOut(_ link: Link, now: Instant, afterDatagram: Bool = false) {
        guard link.audioIn != nil, var due = link.audioPlayoutAt, now >= due else { return }
        let lateTick = now.since(due) >= Self.lateAudioTick  // measured before a long hold's reset below
        if now.since(due) > .milliseconds(200) { due = now }
        let deferral = link.audioWaitDeferredUntil
        let deferring = deferral.map { afterDatagram || now < $0 } ?? false
        while now >= due {
            if link.audioIn!.wouldWait {
                if deferring { break }
                if deferral == nil, lateTick {
                    link.audioWaitDeferredUntil = now + Self.lateAudioTickGrace
                    break
                }
            }
            switch link.audioIn!.pop(now: due) {  // in place, as in receivedRTP
            case .waiting: break
            case .frame(let payload): outputs.append(.audio(link.id, .frame(payload), muted: link.locallyMuted))
            case .continuation: outputs.append(.audio(link.id, .continuation, muted: link.locallyMuted))
            case .lost(let next): outputs.append(.audio(link.id, .lost(next: next), muted: link.locallyMuted))
            }
            due = due + Self.audioFrameDuration
        }
        link.audioPlayoutAt = due
        if deferral != nil, !deferring || now < due { link.audioWaitDeferredUntil = nil }
    }

    /// Per-peer receive figures since the last report: `audio-stats`.
    func reportStatistics(now: Instant) {
        var peers: [CallEvent.AudioStatistics] = []
        for link in linksInOrder {
            guard link.audioIn != nil else { continue }
            let report = link.audioIn!.report(now: now)
            func duration(_ milliseconds: Double) -> Duration { .nanoseconds(Int64(milliseconds * 1e6)) }
            peers.append(.init(peer: link.id, kbps: report.kbps, lossPercent: report.lossPercent, jitter: duration(report.jitterMilliseconds),
                               buffered: duration(report.bufferMilliseconds), target: duration(report.targetMilliseconds),
                               concealed: duration(report.concealedMilliseconds), skipped: duration(report.skippedMilliseconds)))
        }
        if !peers.isEmpty { outputs.append(.event(.audioStats(peers))) }
    }
}
