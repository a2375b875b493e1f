import ConfCore
import ConfCrypto
import ConfWire

/// The link's own transport: DTLS driven over ICE (the client starts once ICE has a pair, the
/// server answers the ClientHello), SRTP keyed from it, the peer's DTLS records taken in. The
/// datagrams it sends wait in `outbox` for the engine to pass on at once (so that they keep
/// their place among the engine's outputs); what the engine must act on comes back as
/// `Event`s, in order.
extension Link {
    /// Whatever the link queued, in order, appended to `outputs`; the outbox is empty afterwards
    /// (and keeps its storage: this runs for every packet).
    func passOutbox(to outputs: inout [CallEngine.Output]) {
        guard !outbox.isEmpty else { return }
        outputs.append(contentsOf: outbox)
        outbox.removeAll(keepingCapacity: true)
    }

    /// The DTLS client starts once ICE has a pair; the server waits for the ClientHello.
    func startDTLSIfReady(now: Instant) -> [Event] {
        guard iceConnected, let dtls, dtls.role == .client, dtlsStartedAt == nil else { return [] }
        dtlsStartedAt = now
        dtls.start(now: now)
        return drainDTLS(now: now)
    }

    /// A DTLS record from the peer (the handshake, its close, or data channel packets).
    func receivedDTLS(_ datagram: [UInt8], now: Instant) -> [Event] {
        guard let dtls else { return [] }
        heardDTLS = true
        if dtlsStartedAt == nil { dtlsStartedAt = now }
        dtls.handle(datagram: datagram, now: now)
        if dtls.isConnected { lastHeard = now }
        return drainDTLS(now: now)
    }

    /// A handshake flight whose timer ran out is sent again.
    func serviceDTLSTimer(now: Instant) -> [Event] {
        guard let dtls, let timeout = dtls.timeout, now >= timeout else { return [] }
        dtls.handleTimeout(now: now)
        return drainDTLS(now: now)
    }

    /// A data channel packet (SCTP) to the peer, inside DTLS.
    func sendOverDTLS(_ packet: [UInt8]) {
        dtls?.send(packet)
        queueDTLSDatagrams()
    }

    /// The association closed from our side: its close_notify to the outbox.
    func closeDTLS() {
        dtls?.close()
        queueDTLSDatagrams()
    }

    /// What DTLS has to send once connected (or closing), to the outbox; nothing else it says
    /// matters then.
    private func queueDTLSDatagrams() {
        while let output = dtls?.pollOutput() {
            if case .send(let datagram) = output { outbox.append(.transmit(id, datagram)) }
        }
    }

    /// DTLS's outputs carried out: datagrams to the outbox, keys to SRTP (the link is then
    /// connected), application data to the data channels. Stops at `.connected` (the engine then
    /// opens the data channels, which the records buffered behind the handshake may be for, and
    /// hands in `.channelsStarted`), and at a failure to key SRTP (the link is over).
    func drainDTLS(now: Instant) -> [Event] {
        guard let dtls else { return [] }
        var events: [Event] = []
        while let output = dtls.pollOutput() {
            switch output {
            case .send(let datagram):
                if dtlsConnectedAt == nil { lastHandshakeFlightAt = now }
                outbox.append(.transmit(id, datagram))
            case .connected(let keys):
                do {
                    srtp = try settings.security.makeSRTP(keys: keys)
                    srtpProfile = keys.profile
                } catch {
                    events.append(.ended(.dtlsFailed(.srtp, detail: "\(error)")))
                    return events
                }
                becameConnected(now: now)
                events.append(.connected)
                return events
            case .applicationData(let packet):
                dataChannels?.receive(packet)
                events.append(.dataChannelInput)
            case .failed(let reason):
                events.append(.ended(.dtlsFailed(.handshake, detail: reason)))
            case .closed:
                events.append(.ended(.closedByPeer))
            }
        }
        return events
    }
}
