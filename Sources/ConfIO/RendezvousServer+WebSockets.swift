internal import CConfShims
import ConfCore
import ConfRendezvous
import ConfWire
#if canImport(Glibc)
import Glibc
#endif

/// The rendezvous's own WebSockets: every plain-TCP `/v1/ws` connection is served here, on the
/// worker's `SocketPoller`, rather than by libsoup (whose every connection is a GLib source the
/// loop walks on each wake-up). libsoup keeps HTTP requests and WebSockets over TLS.
extension RendezvousServer: PolledWebSocketOwner {
    /// Serves descriptor `fd`, admitted as `acceptID`, as a WebSocket: reads its opening
    /// handshake, then its messages; or, handed over by another worker, replays what it sent there.
    func serveWebSocket(_ fd: Int32, acceptID: UInt64, peerHost: String, replaying transcript: [UInt8]? = nil) {
        do throws(SocketPollerError) {
            conf_set_tcp_nodelay(fd, 1)
            let socket = try PolledWebSocket(fd: fd, acceptID: acceptID, peerHost: peerHost, poller: poller(), owner: self, clock: clock,
                                             keepsTranscript: routing != nil)
            polledByAccept[acceptID] = socket
            if let transcript { socket.replay(transcript) }
        } catch {
            log("cannot serve a WebSocket: \(error)")
            admission.closed(acceptID)
            PolledWebSocket.endHandedOver(fd, transcript: transcript)
        }
    }

    /// The core's figures with the transport's.
    var metricsSnapshot: RendezvousMetricsSnapshot {
        var snapshot = core.metricsSnapshot
        snapshot.webSocketDrops = webSocketDrops
        return snapshot
    }

    /// The worker's poller, made on first use.
    func poller() throws(SocketPollerError) -> SocketPoller {
        if let socketPoller { return socketPoller }
        let made = try SocketPoller(loop: loop)
        socketPoller = made
        return made
    }

    func webSocketOpened(_ socket: PolledWebSocket, _ upgrade: WebSocketUpgrade) {
        guard socket.state == .open else { return }
        admission.upgraded(socket.acceptID)
        let id = newConnectionID()
        socket.connection = id
        polled[id] = socket
        let viaProxy = trustedProxies.contains(socket.peerHost)
        opened(id, address: clientAddress(peer: socket.peerHost, forwardedFor: upgrade.forwardedFor), host: viaProxy ? nil : upgrade.host)
    }

    func webSocketReceived(_ socket: PolledWebSocket, text: String?) {
        guard let id = socket.connection else { return }
        core.handle(text.map { .text(id, $0) } ?? .binary(id), now: clock.now())
        flush()
    }

    func webSocketGone(_ socket: PolledWebSocket) {
        if let reason = socket.dropReason { webSocketDrops[reason, default: 0] += 1 }
        admission.closed(socket.acceptID)
        polledByAccept[socket.acceptID] = nil
        closingPolled[socket.acceptID] = nil
        guard let id = socket.connection, polled.removeValue(forKey: id) != nil else { return }
        closed(id)
        callOnAllClosedIfNoneLeft()
    }

    func webSocketClosing(_ socket: PolledWebSocket) {
        closingPolled[socket.acceptID] = socket
    }

    /// Drops connection `acceptID` if it is one of ours (evicted, or its request deadline
    /// passed); returns whether it was.
    func abortPolled(_ acceptID: UInt64) -> Bool {
        guard let socket = polledByAccept[acceptID] else { return false }
        socket.abort()
        return true
    }

    /// Once a second: closing handshakes that the client left unanswered.
    func expireClosingWebSockets(now: Instant) {
        for socket in Array(closingPolled.values) { socket.expire(now: now) }
    }
}
