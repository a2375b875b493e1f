internal import CGLib
internal import CConfShims
import ConfCore
import ConfRendezvous
import ConfWire
#if canImport(Glibc)
import Glibc
#endif

/// How one worker of a rendezvous with several (`RendezvousWorkers`) hands connections to the
/// others. Before libsoup reads a new plain-HTTP connection, its request line is peeked at; a
/// WebSocket for a room another worker holds (`/v1/ws?room=`) goes to that worker's loop as the
/// bare descriptor, where it is accepted as if it had arrived there: the fast path. A WebSocket
/// opened without `?room=` is served where it arrived; if its first message joins or resumes a
/// room another worker holds, it is handed over open, with every byte it sent (its transcript):
/// that worker replays them without answering the handshake again, and the client sees nothing.
public struct WorkerRouting {
    public let share: WorkerShare
    /// Runs on this worker's loop: give descriptor `fd` to worker `owner` (which takes it on its
    /// own loop), with the transcript of a WebSocket already answered, or nil for one not yet read.
    public let forward: (_ fd: Int32, _ owner: Int, _ transcript: [UInt8]?) -> Void

    public init(share: WorkerShare, forward: @escaping (_ fd: Int32, _ owner: Int, _ transcript: [UInt8]?) -> Void) {
        self.share = share
        self.forward = forward
    }
}

/// A connection whose request line is awaited (its admission entry keeps its deadline), on the
/// worker's `SocketPoller` edge-triggered: it is peeked at, not read, so it is told again only
/// when more bytes come (level-triggered, a half-sent line would wake the loop without end).
final class ParkedConnection: PolledDescriptor {
    let fd: Int32
    let host: String
    let id: UInt64
    unowned let server: RendezvousServer

    init(fd: Int32, host: String, id: UInt64, server: RendezvousServer) {
        self.fd = fd
        self.host = host
        self.id = id
        self.server = server
    }

    func readable() { server.peek(id) }
    func writable() {}
}

extension RendezvousServer {
    /// A descriptor another worker routed here (only WebSockets for a room this one holds are):
    /// served without looking again. With `transcript`, the WebSocket was answered there and these
    /// are the bytes it sent (`handOver`): replayed here.
    public func adopt(_ fd: Int32, transcript: [UInt8]? = nil) {
        guard let host = Self.peerHost(of: fd), let id = admit(fd, from: host, answering: transcript == nil) else {
            return PolledWebSocket.endHandedOver(fd, transcript: transcript)
        }
        serveWebSocket(fd, acceptID: id, peerHost: host, replaying: transcript)
    }

    /// The core's `.handOver`: our WebSocket `id` goes, open, to `worker` with its transcript. One
    /// that cannot (over TLS it is libsoup's; or what it sent before its join is no longer all
    /// kept) is refused as misrouted instead.
    func handOver(_ id: ConnectionID, to worker: Int, otherwise: String) {
        if let routing, let socket = polled[id], let transcript = socket.release() {
            polled[id] = nil
            polledByAccept[socket.acceptID] = nil
            forgetAddress(of: id)
            admission.closed(socket.acceptID)  // admitted again where it is served
            routing.forward(socket.fd, worker, transcript)
            return
        }
        let reason = ErrorCode.wrongInstance.rawValue
        if let socket = polled[id] {
            socket.send(text: otherwise)
            socket.close(code: CloseCode.normal, reason: reason)
        } else if let connection = connections[id], soup_websocket_connection_get_state(connection) == SOUP_WEBSOCKET_STATE_OPEN {
            soup_websocket_connection_send_text(connection, otherwise)
            soup_websocket_connection_close(connection, CloseCode.normal, reason)
        }
    }

    /// Admits `fd` as any connection (the per-client cap and the request deadline hold while it
    /// waits), then waits on the loop for its request line.
    func park(_ fd: Int32) {
        guard let host = Self.peerHost(of: fd), let id = admit(fd, from: host, answering: true) else {
            Glibc.close(fd)  // the peer is already gone, or refused
            return
        }
        let connection = ParkedConnection(fd: fd, host: host, id: id, server: self)
        do throws(SocketPollerError) {
            try poller().add(fd, connection, whenMoreArrives: true)
            parked[id] = connection
        } catch {
            log("cannot wait for a request: \(error)")
            admission.closed(id)
            Glibc.close(fd)
        }
    }

    /// The address a connected socket's peer has, nil when it is already gone.
    static func peerHost(of fd: Int32) -> String? {
        var native = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &native) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) } }
        guard named == 0, let remote = g_socket_address_new_from_native(&native, gsize(length)) else { return nil }
        defer { g_object_unref(remote) }
        return peerName(remote).host
    }

    /// Reads (without taking) what has come of a parked connection's request, and hands the
    /// connection on once its request line is whole.
    fileprivate func peek(_ id: UInt64) {
        guard let connection = parked[id] else { return }
        var head = [UInt8](repeating: 0, count: RequestRoute.longestRequestLine)
        let n = recv(connection.fd, &head, head.count, Int32(MSG_PEEK | MSG_DONTWAIT))
        if n < 0 && (errno == EAGAIN || errno == EINTR) { return }
        let route = n > 0 ? RequestRoute.of(head[..<n]) : .anywhere
        if route == .incomplete { return }
        parked[id] = nil
        socketPoller?.remove(connection.fd)
        if n <= 0 {
            admission.closed(id)
            Glibc.close(connection.fd)  // gone before it said anything
            return
        }
        if case .room(let room) = route, let routing, case let owner = WorkerShare.owner(of: room, among: routing.share.count),
           owner != routing.share.index {
            admission.closed(id)  // admitted again where it is served
            return routing.forward(connection.fd, owner, nil)
        }
        switch route {
        case .room, .webSocket:
            serveWebSocket(connection.fd, acceptID: id, peerHost: connection.host)
        case .anywhere, .incomplete:
            admission.closed(id)  // admitted again by accept
            accept(connection.fd, tls: nil, routed: true)
        }
    }

    /// A parked connection past its deadline, or evicted: closed before anyone read it.
    /// Returns whether `id` was parked.
    func closeParked(_ id: UInt64) -> Bool {
        guard let connection = parked.removeValue(forKey: id) else { return false }
        socketPoller?.remove(connection.fd)
        Glibc.close(connection.fd)
        return true
    }

    /// `GET /v1/metrics`: Prometheus text (docs/DEPLOY.md; keep it off the public address).
    func metrics(_ message: OpaquePointer) {
        let address = clientAddress(message)
        guard core.config.mayReadMetrics(address) else {
            return respond(message, status: 403, ServerMessage.error(
                code: .forbidden, message: "the metrics are for this machine and the networks its operator names (--metrics-from), not for \(address)").json)
        }
        let text: String
        if let metricsBoard, let routing {
            metricsBoard.post(metricsSnapshot, from: routing.share.index)
            text = RendezvousMetrics.text(metricsBoard.snapshots.enumerated().map { (metricsLabels + [("worker", "\($0.offset)")], $0.element) })
        } else {
            text = RendezvousMetrics.text([(metricsLabels, metricsSnapshot)])
        }
        soup_server_message_set_status(message, 200, nil)
        text.withCString { soup_server_message_set_response(message, "text/plain; version=0.0.4", SOUP_MEMORY_COPY, $0, UInt(strlen($0))) }
    }

    /// With several workers, plain HTTP answers close their connection, so that a client's next
    /// request (the WebSocket after creating a room) comes on a new one that can be routed.
    func closeAfterAnswerIfRouting(_ message: OpaquePointer) {
        guard routing != nil, let uri = soup_server_message_get_uri(message), let path = g_uri_get_path(uri),
              String(cString: path) != "/v1/ws" else { return }
        soup_message_headers_replace(soup_server_message_get_response_headers(message), "Connection", "close")
    }
}
