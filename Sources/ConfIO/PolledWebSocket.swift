internal import CGLib
import ConfCore
import ConfRendezvous
import ConfWire
#if canImport(Glibc)
import Glibc
#endif

/// What a `PolledWebSocket` tells the server that owns it. All on the loop thread.
protocol PolledWebSocketOwner: AnyObject {
    /// The opening handshake was accepted (the 101 is on its way).
    func webSocketOpened(_ socket: PolledWebSocket, _ upgrade: WebSocketUpgrade)
    /// A whole message: its text, or nil for a binary one.
    func webSocketReceived(_ socket: PolledWebSocket, text: String?)
    /// It started to close (`closingDeadline` is set): `expire` it once a second until it is gone.
    func webSocketClosing(_ socket: PolledWebSocket)
    /// The descriptor is closed; called once, whether or not the socket was ever opened.
    func webSocketGone(_ socket: PolledWebSocket)
}

/// One of the rendezvous's WebSockets on a bare non-blocking descriptor (RFC 6455 over plain
/// TCP; TLS connections stay with libsoup), read and written through the worker's
/// `SocketPoller`. The protocol itself is ConfRendezvous's (`WebSocketUpgrade`,
/// `WebSocketFrameReader`): this class moves bytes and keeps the descriptor's life.
///
/// Life: `.handshake` (reading the request head) → `.open` → `.closing` → closed. Closing: our
/// Close frame sent (the client answers with its own), or the client's answered, or a refusal or
/// protocol failure written; once what is queued is written our side is shut (a FIN, not a reset
/// that could destroy the Close frame before the client reads it) and the client's remaining
/// bytes are read and dropped until it closes too, or until `closingDeadline`.
///
/// Everything the client sends is bounded: the head by `WebSocketUpgrade.longestHead`, a message
/// by `maxMessageBytes`, the bytes read per wake-up by `readsPerWakeup` (a flood from one client
/// does not starve the others). What waits to be written is bounded too: a client that stops
/// reading is dropped, not buffered for.
///
/// Threading: on the loop thread of its poller.
final class PolledWebSocket: PolledDescriptor {
    enum State: Equatable { case handshake, open, closing, closed }
    let fd: Int32
    /// The accept number `ConnectionAdmission` knows it by.
    let acceptID: UInt64
    /// The address it came from (before any X-Forwarded-For).
    let peerHost: String
    /// Set by the owner once opened.
    var connection: ConnectionID?
    private(set) var state: State = .handshake
    private(set) var closingDeadline: Instant?
    /// Why the transport ended it, when its behaviour did (for `/v1/metrics`).
    private(set) var dropReason: WebSocketDrop?
    private unowned let poller: SocketPoller
    private unowned let owner: any PolledWebSocketOwner
    private let clock: any MonotonicClock
    private var head: [UInt8] = []
    private var reader = WebSocketFrameReader(maxMessageBytes: ProtocolLimits.maxMessageBytes)
    private var outbound = OutboundBytes()
    /// In `.closing`: our last frame is queued; shut our side once it is written.
    private var shutWhenWritten = false
    private var shut = false
    /// Whether the poller is asked for writability (toggled on change: each is a system call).
    private var watchingWrites = false
    /// Every byte the client sent, until its first message has been taken (or past
    /// `transcriptLimit`): what another worker replays if that message is for a room it holds.
    /// Kept only where there are other workers.
    private var transcript: [UInt8]?
    /// Replayed from another worker, which answered the handshake: no second 101.
    private var answered = false

    /// More than this waiting to be written and the client is dropped (16 of the largest messages).
    static let outboundLimit = 16 * ProtocolLimits.maxMessageBytes
    static let closingGrace: Duration = .seconds(2)
    static let readsPerWakeup = 4
    /// The longest transcript kept: a head and a first message of 8 KiB (a join is under 1 KiB).
    static let transcriptLimit = WebSocketUpgrade.longestHead + 8_192

    init(fd: Int32, acceptID: UInt64, peerHost: String, poller: SocketPoller, owner: any PolledWebSocketOwner,
         clock: any MonotonicClock, keepsTranscript: Bool = false) throws(SocketPollerError) {
        self.fd = fd
        transcript = keepsTranscript ? [] : nil
        self.acceptID = acceptID
        self.peerHost = peerHost
        self.poller = poller
        self.owner = owner
        self.clock = clock
        try poller.add(fd, self)
    }

    // MARK: Commands from the owner

    func send(text: String) {
        guard state == .open else { return }
        write(WebSocketFrame.text(text))
    }

    /// Starts the closing handshake (RFC 6455 §7.1.2): the client answers with its Close, or is
    /// dropped after `closingGrace`.
    func close(code: UInt16, reason: String) {
        guard state == .open else { return }
        write(WebSocketFrame.close(code: code, reason: reason))
        beginClosing(shutWhenWritten: false)
    }

    /// Drops the connection now: no Close frame (an eviction, a deadline passed).
    func abort() { finish() }

    /// Lets go of the descriptor, open, for another worker: its transcript, or nil (and nothing
    /// changes) when it cannot go: not open, its first message already taken, or our handshake
    /// answer not yet all written. The owner is not told; the descriptor is not closed.
    func release() -> [UInt8]? {
        guard state == .open, outbound.isEmpty, let transcript else { return nil }
        self.transcript = nil
        state = .closed
        poller.remove(fd)
        return transcript
    }

    /// Ends a WebSocket handed over that could not be taken (refused where it went, or that
    /// worker unreachable): a Close frame, best effort, then the descriptor is closed. Without a
    /// transcript the connection was not yet read, and is only closed.
    static func endHandedOver(_ fd: Int32, transcript: [UInt8]?) {
        if transcript != nil {
            let frame = WebSocketFrame.close(code: 1013, reason: "the rendezvous could not take this connection: try again")
            _ = frame.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
        }
        Glibc.close(fd)
    }

    /// Takes what the client sent to the worker that handed it here, as if it had come now.
    func replay(_ bytes: [UInt8]) {
        answered = true
        transcript = nil  // handed over once at most
        bytes.withUnsafeBytes { received($0) }
    }

    /// Closes the descriptor without telling the owner (which is going away).
    func detach() {
        guard state != .closed else { return }
        state = .closed
        poller.remove(fd)
        Glibc.close(fd)
    }

    /// Drops a connection whose closing has taken too long.
    func expire(now: Instant) {
        guard state == .closing, let closingDeadline, now >= closingDeadline else { return }
        dropReason = dropReason ?? .closeTimeout
        finish()
    }

    // MARK: PolledDescriptor

    func readable() {
        let buffer = poller.readBuffer
        for _ in 0..<Self.readsPerWakeup where state != .closed {
            let n = recv(fd, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT))
            if n > 0 {
                received(UnsafeRawBufferPointer(rebasing: buffer[..<n]))
            } else if n == 0 || (errno != EAGAIN && errno != EINTR) {
                return finish()  // the client went away (or answered our FIN), or the connection broke
            } else if errno == EAGAIN {
                return
            }
        }
    }

    func writable() { flush() }

    // MARK: Reading

    private func received(_ bytes: UnsafeRawBufferPointer) {
        if let kept = transcript?.count {
            if kept + bytes.count <= Self.transcriptLimit { transcript?.append(contentsOf: bytes) } else { transcript = nil }
        }
        process(bytes)
    }

    private func process(_ bytes: UnsafeRawBufferPointer) {
        switch state {
        case .handshake: readHead(bytes)
        case .open, .closing:
            guard !shutWhenWritten else { return }  // refused, failed or answered: what comes is dropped
            reader.append(bytes)
            readMessages()
        case .closed: break
        }
    }

    private func readHead(_ bytes: UnsafeRawBufferPointer) {
        head.append(contentsOf: bytes)
        switch WebSocketUpgrade.headLength(of: head) {
        case .incomplete: return
        case .tooLong: refuse(.headTooLong)
        case .complete(let length):
            let rest = Array(head[length...])
            do throws(WebSocketUpgrade.Refusal) {
                let upgrade = try WebSocketUpgrade(head: head[..<length])
                head = []
                state = .open
                if !answered { write(WebSocketUpgrade.response(accept: Self.accept(key: upgrade.key))) }
                guard state == .open else { return }  // the 101 could not be written: gone
                owner.webSocketOpened(self, upgrade)
                guard state != .closed else { return }
                rest.withUnsafeBytes { process($0) }  // in the transcript already
            } catch {
                refuse(error)
            }
        }
    }

    private func readMessages() {
        while state == .open || state == .closing, !shutWhenWritten, let event = reader.next() {
            switch event {
            case .text(let text): if state == .open { taken(text) }
            case .binary: if state == .open { taken(nil) }
            // Only while nothing waits to be written: a Pong answers the latest Ping (§5.5.3), and
            // a client that pings without reading fills nothing.
            case .ping(let payload): if state == .open && outbound.isEmpty { write(WebSocketFrame.pong(payload)) }
            case .pong: break
            case .close(let code, _):
                // Answered with the same code (§5.5.1), unless we sent ours first.
                if state == .open { write(WebSocketFrame.close(code: code ?? 1000, reason: "")) }
                beginClosing(shutWhenWritten: true)
            case .failure(let code, let message):
                dropReason = code == 1009 ? .tooLarge : .framing
                if state == .open { write(WebSocketFrame.close(code: code, reason: message)) }
                beginClosing(shutWhenWritten: true)
            }
        }
    }

    /// A whole message to the owner. The first one may hand the socket over (`release`); once one
    /// has been taken here, the transcript is no longer needed.
    private func taken(_ text: String?) {
        owner.webSocketReceived(self, text: text)
        transcript = nil
    }

    /// An opening handshake refused with an HTTP status and a JSON error body.
    private func refuse(_ refusal: WebSocketUpgrade.Refusal) {
        // 426 names what to upgrade to (RFC 9110 §15.5.22), and so says Upgrade in Connection.
        let upgrade = refusal.status == 426
        let response = ClosingHTTPResponse.text(status: "\(refusal.status) \(refusal.reason)",
                                                ServerMessage.error(code: .badRequest, message: refusal.message).json,
                                                headers: upgrade ? ["Sec-WebSocket-Version: 13", "Upgrade: websocket"] : [],
                                                connection: upgrade ? "Upgrade, close" : "close")
        head = []
        dropReason = .handshake
        write(Array(response.utf8))
        beginClosing(shutWhenWritten: true)
    }

    private func beginClosing(shutWhenWritten: Bool) {
        guard state != .closed else { return }
        self.shutWhenWritten = self.shutWhenWritten || shutWhenWritten
        if state != .closing {
            state = .closing
            closingDeadline = clock.now() + Self.closingGrace
            owner.webSocketClosing(self)
        }
        if self.shutWhenWritten && outbound.isEmpty { shutOurSide() }
    }

    /// Our last frame is out: a FIN, then the client's bytes are drained until it closes.
    private func shutOurSide() {
        guard !shut else { return }
        shut = true
        Glibc.shutdown(fd, Int32(SHUT_WR))
    }

    // MARK: Writing

    private func write(_ bytes: [UInt8]) {
        guard state != .closed, !shut else { return }
        if outbound.count + bytes.count > Self.outboundLimit {
            dropReason = .slowReader
            return finish()
        }
        let wasEmpty = outbound.isEmpty
        outbound.append(bytes)
        if wasEmpty { flush() }
    }

    private func flush() {
        while !outbound.isEmpty {
            let n = outbound.withUnsent { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
            if n > 0 {
                outbound.consume(n)
            } else if n < 0 && errno == EINTR {
                continue
            } else if n < 0 && errno == EAGAIN {
                if !watchingWrites { poller.wantWrites(fd, true) }
                watchingWrites = true
                return
            } else {
                return finish()
            }
        }
        if watchingWrites { poller.wantWrites(fd, false) }
        watchingWrites = false
        if shutWhenWritten { shutOurSide() }
    }

    private func finish() {
        guard state != .closed else { return }
        state = .closed
        poller.remove(fd)
        Glibc.close(fd)
        owner.webSocketGone(self)
    }

    /// Sec-WebSocket-Accept: base64(SHA-1(key + GUID)) (RFC 6455 §4.2.2).
    static func accept(key: String) -> String {
        let checksum = g_checksum_new(G_CHECKSUM_SHA1)!
        defer { g_checksum_free(checksum) }
        let text = Array((key + WebSocketUpgrade.acceptGUID).utf8)
        g_checksum_update(checksum, text, text.count)
        var digest = [UInt8](repeating: 0, count: 20)
        var length = gsize(digest.count)
        g_checksum_get_digest(checksum, &digest, &length)
        let encoded = g_base64_encode(digest, length)!
        defer { g_free(encoded) }
        return String(cString: encoded)
    }
}
