import ConfCore
import ConfSession
import ConfWire

/// Audio and video through each link's RTP streams: encode once (the driver), packetise and
/// protect per peer; per peer, a jitter buffer or frame assembler, NACK and PLI.
extension CallEngine {
    // MARK: Sending

    func sendAudio(_ opus: [UInt8]?, level: UInt8, now: Instant) {
        let heard = audioMuted ? 127 : level
        if let change = selfTalking.update(level: heard, now: now) {
            outputs.append(.event(.talking(peer: nil, name: "you", talking: change)))
        }
        guard let opus, !audioMuted, configuration.sendsAudio else { return }
        let audioLevel = AudioLevel(voiceActivity: level < 50, level: level)
        for link in links.values where link.phase == .connected {
            guard let audio = link.negotiated?.audio, audio.sends, let srtp = link.srtp else { continue }
            var extensions: [UInt8: [UInt8]] = [:]
            if let id = audio.audioLevelExtension { extensions[id] = audioLevel.bytes }
            let timestamp = link.audioOut.packets == 0 ? link.audioOut.firstTimestamp : link.audioOut.timestamp &+ Self.audioFrameSamples
            let bytes = link.audioOut.packet(payloadType: audio.payloadType, timestamp: timestamp,
                                             marker: link.audioOut.packets == 0, extensions: extensions, payload: opus)
            if let protected = srtp.protectRTP(bytes) { outputs.append(.transmit(link.id, protected)) }
        }
    }

    /// One encoded frame, packetised once; sequence numbers, timestamps and SRTP are per link.
    func sendVideo(_ frame: [UInt8], captured: Instant, now: Instant) {
        guard configuration.sendsVideo else { return }
        let first = firstVideoCapture ?? captured
        firstVideoCapture = first
        let ticks = UInt32(truncatingIfNeeded: Int64(captured.since(first).milliseconds * 90))
        let payloads = videoPacketizer.packetize(frame)
        for link in links.values where link.phase == .connected {
            guard let video = link.negotiated?.video, video.sends, let srtp = link.srtp else { continue }
            let timestamp = link.videoOut.firstTimestamp &+ ticks
            for (index, payload) in payloads.enumerated() {
                let bytes = link.videoOut.packet(payloadType: video.payloadType, timestamp: timestamp,
                                                 marker: index == payloads.count - 1, payload: payload)
                if let protected = srtp.protectRTP(bytes) { outputs.append(.transmit(link.id, protected)) }
            }
        }
    }

    /// A peer's NACK: those packets again from the history, if still in it.
    func resendVideo(_ sequences: [UInt16], on link: PeerConnection) {
        guard let srtp = link.srtp else { return }
        for sequence in sequences {
            if let bytes = link.videoOut.resend(sequence), let protected = srtp.protectRTP(bytes) {
                outputs.append(.transmit(link.id, protected))
            }
        }
    }

    // MARK: Receiving

    func receivedRTP(_ packet: RTPPacket, on link: PeerConnection, now: Instant) {
        guard let negotiated = link.negotiated else { return }
        if let video = negotiated.video, packet.payloadType == video.payloadType {
            guard configuration.receivesVideo, video.receives else { return }
            receivedVideo(packet, on: link, now: now)
        } else if let audio = negotiated.audio, packet.payloadType == audio.payloadType {
            guard configuration.receivesAudio, audio.receives else { return }
            var inbound = link.audioIn ?? AudioInbound()
            if inbound.lastReport == nil { inbound.lastReport = (now, inbound.buffer.statistics) }
            inbound.buffer.insert(sequence: packet.sequenceNumber, timestamp: packet.timestamp, payload: packet.payload, arrival: now)
            inbound.bytesSinceReport += packet.payload.count
            if inbound.reception?.ssrc != packet.ssrc { inbound.reception = ReceptionStatistics(ssrc: packet.ssrc) }
            inbound.reception?.update(sequence: packet.sequenceNumber, timestamp: packet.timestamp, arrival: now)
            if inbound.nextPlayoutAt == nil { inbound.nextPlayoutAt = now }
            link.audioIn = inbound
        }
    }

    private func receivedVideo(_ packet: RTPPacket, on link: PeerConnection, now: Instant) {
        var inbound = link.videoIn ?? VideoInbound()
        inbound.ssrc = packet.ssrc
        let missing = inbound.nack.received(packet.sequenceNumber, now: now)
        if !missing.isEmpty { send(.negativeAcknowledgement(sender: link.audioSSRC, media: packet.ssrc, lost: missing), on: link) }
        let droppedBefore = inbound.assembler.droppedFrames
        let frames = inbound.assembler.insert(sequence: packet.sequenceNumber, timestamp: packet.timestamp, marker: packet.marker,
                                              payload: packet.payload, now: now)
        let dropped = inbound.assembler.droppedFrames > droppedBefore
        link.videoIn = inbound
        for frame in frames { outputs.append(.video(link.id, frame, ssrc: packet.ssrc)) }
        if dropped { requestKeyFrame(on: link, now: now) }
    }

    /// PLI, at most one each 300 ms per link.
    func requestKeyFrame(on link: PeerConnection, now: Instant) {
        guard var inbound = link.videoIn, now.since(inbound.lastKeyFrameRequest) >= .milliseconds(300) else { return }
        inbound.lastKeyFrameRequest = now
        link.videoIn = inbound
        send(.pictureLossIndication(sender: link.audioSSRC, media: inbound.ssrc), on: link)
    }

    /// Audio due for playout on a 20 ms cadence from the first packet (late calls catch up).
    func playOut(_ link: PeerConnection, now: Instant) {
        guard var inbound = link.audioIn, var due = inbound.nextPlayoutAt else { return }
        if now.since(due) > .milliseconds(200) { due = now }
        while now >= due {
            switch inbound.buffer.pop(now: due) {
            case .waiting: break
            case .frame(let payload): outputs.append(.audio(link.id, .frame(payload), muted: link.locallyMuted))
            case .lost(let next): outputs.append(.audio(link.id, .lost(next: next), muted: link.locallyMuted))
            }
            due = due + Self.audioFrameDuration
        }
        inbound.nextPlayoutAt = due
        link.audioIn = inbound
    }

    /// Per-peer receive figures since the last report: `audio-stats`.
    func reportStatistics(now: Instant) {
        var peers: [AudioStatistics] = []
        for link in links.values.sorted(by: { $0.id.rawValue < $1.id.rawValue }) {
            guard var inbound = link.audioIn else { continue }
            let current = inbound.buffer.statistics
            let previous = inbound.lastReport
            let seconds = previous.map { now.since($0.at).milliseconds / 1000 } ?? 0
            let played = current.played - (previous?.statistics.played ?? 0)
            let lost = current.lost - (previous?.statistics.lost ?? 0)
            let concealed = current.concealed - (previous?.statistics.concealed ?? 0)
            peers.append(AudioStatistics(
                peer: link.id, kbps: seconds > 0 ? Double(inbound.bytesSinceReport) * 8 / seconds / 1000 : 0,
                lossPercent: played + lost > 0 ? Double(lost) * 100 / Double(played + lost) : 0,
                jitterMilliseconds: inbound.reception?.jitterMilliseconds ?? 0,
                bufferMilliseconds: Double(inbound.buffer.bufferedFrames * 20),
                targetMilliseconds: inbound.buffer.targetDelay.milliseconds, concealedMilliseconds: Double(concealed * 20)))
            inbound.bytesSinceReport = 0
            inbound.lastReport = (now, current)
            link.audioIn = inbound
        }
        outputs.append(.event(.audioStats(peers)))
    }
}
