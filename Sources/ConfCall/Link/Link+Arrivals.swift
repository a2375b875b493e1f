import ConfCore
import ConfCrypto
import ConfWire

/// What arrives on the link from the peer, once DTLS has keyed SRTP: packets authenticated and
/// parsed, counted, and the link's liveness (when it last heard the peer, and how long a silence
/// it allows).
extension Link {
    /// What became of an RTP packet.
    enum RTPArrival: Equatable {
        case packet(RTPPacket)
        /// A listener's media, dropped unread; `first` the first time (reported once).
        case fromListener(first: Bool)
        /// Not authentic, or not RTP.
        case dropped
    }

    /// An SRTCP packet: its RTCP packets, or nil if it was not authentic or not RTCP.
    func receiveRTCP(_ datagram: [UInt8], now: Instant) -> [RTCPPacket]? {
        guard let plain = srtp?.unprotectRTCP(datagram) else { return nil }
        heardSRTP(now: now)
        return RTCPPacket.parseCompound(plain)
    }

    /// An SRTP packet. The listen-only role is enforced here too, whatever was negotiated: a
    /// listener's media is dropped unread (the rendezvous's roster says who listens).
    func receiveRTP(_ datagram: [UInt8], now: Instant) -> RTPArrival {
        if peer.role == .listener {
            droppedFromListener += 1
            return .fromListener(first: droppedFromListener == 1)
        }
        guard let plain = srtp?.unprotectRTP(datagram) else { return .dropped }
        heardSRTP(now: now)
        guard let packet = RTPPacket(bytes: plain) else { return .dropped }
        let audio = packet.payloadType == audioPayloadType
        traffic.received(datagramBytes: datagram.count, audio: audio, at: now)
        if audio {
            let samples = OpusPacketDuration.samples(in: packet.payload) ?? 960
            incomingQueue.record(rtpTimestamp: packet.timestamp, samples: samples, at: now)
        }
        return .packet(packet)
    }

    private func heardSRTP(now: Instant) {
        lastHeard = now
        heardSRTP = true
    }

    /// How long the link may go without hearing the peer. As the DTLS server, until the peer's
    /// first SRTP packet its side of the handshake may still be retrying (our last flight lost,
    /// under heavy loss for seconds): it gets the connect timeout. As the client, the server's
    /// last flight is what finished ours, so the peer is done too and has no reason to stay
    /// quiet: a peer that stops right after the handshake, before its first packet of media, is
    /// lost after `Link.silenceLimit`.
    var silenceLimit: Duration {
        heardSRTP || dtls?.role == .client ? Self.silenceLimit : max(Self.silenceLimit, settings.connectTimeout)
    }

    /// A vanished peer is declared gone after this long without an authenticated packet.
    static let silenceLimit: Duration = .milliseconds(2500)
}
