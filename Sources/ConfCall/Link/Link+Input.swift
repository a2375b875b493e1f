import ConfCore
import ConfSession
import ConfWire

/// The link's one way in. The engine hands it what concerns this peer alone, with `now`; the
/// link acts on it (its phase, its transport, its streams, its congestion controller), queues
/// what it sends in `outbox`, and returns as `Event`s, in order, only what reaches beyond it:
/// what the engine decides for the whole call (announcing the peer, one encoder's key frame,
/// restarts).
extension Link {
    enum Input {
        /// The peer's offer or answer was agreed: its DTLS is made, and the client starts it
        /// if ICE already has a pair.
        case negotiated(NegotiatedLink)
        /// ICE, as the driver's agent reports it.
        case iceState(CallEngine.IceState)
        /// A datagram from the peer: DTLS, SRTP or SRTCP (RFC 7983 section 7 tells which).
        /// `senderHeldUp`: our own loop is late, so arrival times overstate the path's delay.
        case datagram([UInt8], senderHeldUp: Bool)
        /// After `.connected`, the engine opened the data channels: DTLS's records that waited
        /// behind the handshake (they may be for those channels) are read now.
        case channelsStarted
        /// The data channels may have output: the engine gave them work, or the driver said
        /// they have (usrsctp's own timers).
        case channelsHaveOutput
        /// What is due by `now`: the DTLS timer, playout, and once connected the pacer,
        /// feedback, the silence limit and a report every `reportInterval`. `afterDatagram`:
        /// serviced right after a datagram (playout then never conceals, `playOut`).
        case timeout(reportInterval: Duration, afterDatagram: Bool)
    }

    /// What the link did that the engine acts on.
    enum Event: Equatable {
        /// DTLS is up and SRTP keyed; the link is connected (the engine opens the data
        /// channels, then hands in `.channelsStarted`).
        case connected
        /// The link is over: the handshake, SRTP or the association failed, the path failed or
        /// went silent, or the peer closed it. The engine reports it and may restart.
        case ended(DisconnectReason)
        /// The data channels took a packet and may have output.
        case dataChannelInput
        /// A data channel of ours opened; what the engine should send on it.
        case channelOpened(ChannelOpening)
        /// A chat message from the peer (a listener's never comes).
        case chat(String)
        /// A message on conf's control channel, unread.
        case control(String)
        /// A listener sent chat, dropped; only the first time.
        case listenerChatIgnored
        /// The peer closed the chat channel while the link is up.
        case chatClosed
        /// The peer lost our video (PLI): one encoder serves every link, so the engine decides.
        case pictureLost
        /// A listener sent media, dropped unread; only the first time.
        case listenerMediaIgnored
        /// The peer's audio packets are not whole 20 ms frames, so conf cannot play them; only
        /// the first time, with the length seen.
        case unplayableAudio(milliseconds: Double?)
    }

    func handle(_ input: Input, now: Instant) -> [Event] {
        guard phase != .disconnected else { return [] }
        switch input {
        case .negotiated(let negotiated): return take(negotiated, now: now)
        case .iceState(let state): return iceChanged(to: state, now: now)
        case .datagram(let datagram, let senderHeldUp): return received(datagram, senderHeldUp: senderHeldUp, now: now)
        case .channelsStarted: return drainDTLS(now: now)
        case .channelsHaveOutput: return drainChannels()
        case .timeout(let reportInterval, let afterDatagram): return service(reportInterval: reportInterval, afterDatagram: afterDatagram, now: now)
        }
    }

    private func take(_ negotiated: NegotiatedLink, now: Instant) -> [Event] {
        self.negotiated = negotiated
        negotiatedAt = now
        do {
            dtls = try settings.security.makeDTLS(role: negotiated.dtlsRole, remoteFingerprints: negotiated.remoteFingerprints)
        } catch {
            return [.ended(.dtlsFailed(.setup, detail: "\(error)"))]
        }
        return startDTLSIfReady(now: now)
    }

    private func iceChanged(to state: CallEngine.IceState, now: Instant) -> [Event] {
        switch state {
        case .checking: return []
        case .connected:
            iceConnected = true
            if iceConnectedAt == nil { iceConnectedAt = now }
            return startDTLSIfReady(now: now)
        case .failed:
            return [.ended(phase == .connected ? .pathFailed : .noPath(within: nil, cause: noPathCause))]
        }
    }

    private func received(_ datagram: [UInt8], senderHeldUp: Bool, now: Instant) -> [Event] {
        switch PacketKind(classifying: datagram) {
        case .dtls:
            return receivedDTLS(datagram, now: now)
        case .rtcp:
            guard let packets = receiveRTCP(datagram, now: now) else { return [] }
            var events: [Event] = []
            for packet in packets {
                switch packet {
                case .pictureLossIndication: events.append(.pictureLost)
                case .negativeAcknowledgement(_, _, let lost): resendVideo(lost, now: now)
                default: break
                }
            }
            receivedCongestionFeedback(packets, senderHeldUp: senderHeldUp, now: now)
            measureRoundTrip(packets, now: now)
            return events
        case .rtp:
            let packet: RTPPacket
            switch receiveRTP(datagram, now: now) {
            case .packet(let arrived): packet = arrived
            case .fromListener(let first): return first ? [.listenerMediaIgnored] : []
            case .dropped: return []
            }
            recordArrival(packet, now: now)
            // Padding only on an SSRC that is not the peer's video (our probes): it was there for the
            // transport feedback. Padding on the video stream itself goes on, for its sequence numbers.
            guard !packet.payload.isEmpty || packet.ssrc == videoIn?.rtp.ssrc else { return [] }
            return receivedMedia(packet, now: now)
        case .stun, .turnChannel, .unknown:
            return []
        }
    }

    private func receivedMedia(_ packet: RTPPacket, now: Instant) -> [Event] {
        guard let negotiated else { return [] }
        if let video = negotiated.video, packet.payloadType == video.payloadType {
            guard settings.receivesVideo, video.receives else { return [] }
            receiveVideo(packet, now: now)
        } else if let audio = negotiated.audio, packet.payloadType == audio.payloadType {
            guard settings.receivesAudio, audio.receives else { return [] }
            if receiveAudio(packet, now: now) == .unplayable(first: true) {
                return [.unplayableAudio(milliseconds: audioIn?.lastOtherLength.map { Double($0) / 48 })]
            }
        }
        return []
    }

    private func service(reportInterval: Duration, afterDatagram: Bool, now: Instant) -> [Event] {
        let events = serviceDTLSTimer(now: now)
        guard events.isEmpty else { return events }  // the engine acts on them first; the rest waits a pass
        playOut(now: now, afterDatagram: afterDatagram)
        guard phase == .connected else { return [] }
        serviceCongestion(now: now)
        if now.since(lastHeard) >= silenceLimit { return [.ended(.silence(limit: silenceLimit))] }
        sendReportIfDue(interval: reportInterval, now: now)
        return []
    }
}
