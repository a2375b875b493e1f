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
    /// The descriptor is closed; called once, and only for a socket that was opened... or not.
    func webSocketGone(_ socket: PolledWebSocket, wasOpen: Bool)
}

/// One of the rendezvous's WebSockets on a bare non-blocking descriptor (RFC 6455 over plain
/// TCP; TLS connections stay with libsoup), read and written through the worker's
/// `SocketPoller`. The protocol itself is ConfRendezvous's (`WebSocketUpgrade`,
/// `WebSocketFrameReader`): this class moves bytes and keeps the descriptor's life.
///
/// Life: `.handshake` (reading the request head) → `.open` → `.closing` (our Close frame sent:
/// waiting for the client's, or for `closingDeadline`) → closed. Everything the client sends is
/// bounded: the head by `WebSocketUpgrade.longestHead`, a message by `maxMessageBytes`. What
/// waits to be written is bounded too: a client that stops reading is dropped, not buffered for.
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
    /// When `.closing` gives up waiting for the client's Close.
    private(set) var closingDeadline: Instant?
    private unowned let poller: SocketPoller
    private unowned let owner: any PolledWebSocketOwner
    private var head: [UInt8] = []
    private var reader: WebSocketFrameReader
    private var outbound: [UInt8] = []
    private var outboundStart = 0
    /// Close the descriptor as soon as `outbound` is written (a refusal, a protocol failure, an
    /// answered Close).
    private var closeWhenWritten = false
    /// Whether the poller is asked for writability (only while `outbound` has bytes: toggled on
    /// change, as each toggle is a system call).
    private var watchingWrites = false

    /// More than this waiting to be written and the client is dropped (about 16 of the largest messages).
    static let outboundLimit = 16 * ProtocolLimits.maxMessageBytes
    static let closingGrace: Duration = .seconds(1)

    init(fd: Int32, acceptID: UInt64, peerHost: String, poller: SocketPoller, owner: any PolledWebSocketOwner) throws(SocketPollerError) {
        self.fd = fd
        self.acceptID = acceptID
        self.peerHost = peerHost
        self.poller = poller
        self.owner = owner
        reader = WebSocketFrameReader(maxMessageBytes: ProtocolLimits.maxMessageBytes)
        try poller.add(fd, self)
    }

    // MARK: Commands from the owner

    func send(text: String) {
        guard state == .open else { return }
        write(WebSocketFrame.text(text))
    }

    /// Starts the closing handshake (RFC 6455 §7.1.2): the client answers with its Close, or is
    /// dropped after `closingGrace` (`expire`).
    func close(code: UInt16, reason: String, now: Instant) {
        guard state == .open else { return }
        state = .closing
        closingDeadline = now + Self.closingGrace
        write(WebSocketFrame.close(code: code, reason: reason))
    }

    /// Drops the connection now: no Close frame (an eviction, a deadline passed).
    func abort() { finish() }

    /// Closes the descriptor without telling the owner (which is going away).
    func detach() {
        guard state != .closed else { return }
        state = .closed
        poller.remove(fd)
        Glibc.close(fd)
    }

    /// Drops a connection whose closing handshake has taken too long.
    func expire(now: Instant) {
        if state == .closing, let closingDeadline, now >= closingDeadline { finish() }
    }

    // MARK: PolledDescriptor

    func readable() {
        let buffer = poller.readBuffer
        while state != .closed {
            let n = recv(fd, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT))
            if n > 0 {
                received(UnsafeRawBufferPointer(rebasing: buffer[..<n]))
            } else if n == 0 || (errno != EAGAIN && errno != EINTR) {
                return finish()  // the client went away, or the connection broke
            } else if errno == EAGAIN {
                return
            }
        }
    }

    func writable() { flush() }

    // MARK: Reading

    private func received(_ bytes: UnsafeRawBufferPointer) {
        switch state {
        case .handshake: readHead(bytes)
        case .open, .closing:
            guard !closeWhenWritten else { return }  // refused or failed: nothing more is read
            reader.append(bytes)
            readMessages()
        case .closed: break
        }
    }

    private func readHead(_ bytes: UnsafeRawBufferPointer) {
        head.append(contentsOf: bytes)
        switch WebSocketUpgrade.headLength(of: head) {
        case .incomplete: return
        case .tooLong:
            refuse(.headTooLong)
        case .complete(let length):
            let rest = Array(head[length...])
            do throws(WebSocketUpgrade.Refusal) {
                let upgrade = try WebSocketUpgrade(head: head[..<length])
                head = []
                state = .open
                write(WebSocketUpgrade.response(accept: Self.accept(key: upgrade.key)))
                owner.webSocketOpened(self, upgrade)
                guard state == .open else { return }
                rest.withUnsafeBytes { reader.append($0) }
                readMessages()
            } catch {
                refuse(error)
            }
        }
    }

    private func readMessages() {
        while state == .open || state == .closing, let event = reader.next() {
            switch event {
            case .text(let text): if state == .open { owner.webSocketReceived(self, text: text) }
            case .binary: if state == .open { owner.webSocketReceived(self, text: nil) }
            case .ping(let payload): if state == .open { write(WebSocketFrame.pong(payload)) }
            case .pong: break
            case .close(let code, _):
                // Answered with the same code (RFC 6455 §5.5.1), then closed: the server closes
                // the TCP connection first (§7.1.1).
                if state == .open { write(WebSocketFrame.close(code: code ?? 1000, reason: "")) }
                closeAfterWriting()
            case .failure(let code, let message):
                if state == .open { write(WebSocketFrame.close(code: code, reason: message)) }
                closeAfterWriting()
            }
        }
    }

    /// An opening handshake refused with an HTTP status and a JSON error body.
    private func refuse(_ refusal: WebSocketUpgrade.Refusal) {
        let body = ServerMessage.error(code: .badRequest, message: refusal.message).json.serialized
        var response = "HTTP/1.1 \(refusal.status) \(refusal.reason)\r\nContent-Type: application/json\r\n"
        if refusal.status == 426 { response += "Sec-WebSocket-Version: 13\r\nUpgrade: websocket\r\n" }
        response += "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body
        head = []
        write(Array(response.utf8))
        closeAfterWriting()
    }

    // MARK: Writing

    private func write(_ bytes: [UInt8]) {
        guard state != .closed else { return }
        if outbound.count - outboundStart + bytes.count > Self.outboundLimit { return finish() }
        let wasEmpty = outboundStart == outbound.count
        outbound.append(contentsOf: bytes)
        if wasEmpty { flush() }
    }

    private func flush() {
        while outboundStart < outbound.count {
            let n = outbound.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + outboundStart, $0.count - outboundStart, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
            if n > 0 {
                outboundStart += n
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
        outbound.removeAll(keepingCapacity: outbound.capacity <= 65_536)
        outboundStart = 0
        if watchingWrites { poller.wantWrites(fd, false) }
        watchingWrites = false
        if closeWhenWritten { finish() }
    }

    private func closeAfterWriting() {
        closeWhenWritten = true
        if state == .handshake || state == .open { state = .closing }
        if outboundStart == outbound.count { finish() }
    }

    private func finish() {
        guard state != .closed else { return }
        let wasOpen = connection != nil
        state = .closed
        poller.remove(fd)
        Glibc.close(fd)
        owner.webSocketGone(self, wasOpen: wasOpen)
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
