internal import CGLib
internal import CConfShims
import ConfCore
import ConfWeb
import ConfWire
import ConfRendezvous
#if canImport(Glibc)
import Glibc
#endif

/// The rendezvous on libsoup 3: `POST /v1/rooms`, `GET /v1/health`, `GET /v1/metrics` and the WebSocket at `/v1/ws`
/// (docs/PROTOCOL.md). All decisions are `RendezvousCore`'s; this class moves bytes and events.
///
/// Connections are accepted here, not by libsoup's listener (which stops for good at the first
/// EMFILE): `ConnectionAcceptor` takes them off the listening socket, `ConnectionAdmission`
/// decides which to keep (a cap per client and in all, a deadline for each request), and each
/// kept one is handed to libsoup with `soup_server_accept_iostream`, wrapped in TLS first when
/// serving HTTPS.
///
/// Threading: everything here runs on the `EventLoop` thread it was made on.
public final class RendezvousServer {
    public let core: RendezvousCore
    let loop: EventLoop
    let clock: any MonotonicClock
    let log: (String) -> Void
    /// Set when this is one of several workers (`RendezvousWorkers`).
    public var routing: WorkerRouting?
    /// With several workers: where every worker's figures meet for `/v1/metrics`.
    public var metricsBoard: MetricsBoard?
    var parked: [UInt64: ParkedConnection] = [:]
    var nextParked: UInt64 = 1
    /// Load balancers whose `X-Forwarded-For` names the client (`--trusted-proxy`), by address.
    public var trustedProxies: Set<String> = []
    /// On every sample of `/v1/metrics` (`instance="1"` for one of several).
    public var metricsLabels: [(String, String)] = []
    /// Told of every WebSocket's client address while it is open: the STUN server keeps a share
    /// of its answers for them.
    public var stunParticipants: STUNParticipants?
    /// The client address of each open WebSocket, for `stunParticipants`.
    var openAddresses: [ConnectionID: String] = [:]
    let server: UnsafeMutablePointer<SoupServer>
    private var listeners: [ListeningSocket] = []
    var acceptors: [ConnectionAcceptor] = []
    var admission: ConnectionAdmission
    /// The sockets handed to libsoup, by accept number, until libsoup lets go of them; kept
    /// (with a reference) so that a connection past its deadline can be shut down.
    var accepted: [UInt64: AcceptedSocket] = [:]
    /// Accept numbers by the peer's "address port", which is how a libsoup message names its connection.
    var acceptedByPeer: [String: UInt64] = [:]
    var nextAccepted: UInt64 = 1
    /// libsoup's WebSockets: those over TLS, and an upgrade libsoup is asked for on a connection
    /// it already serves (after a request kept alive) or at a path under /v1/ws/.
    var connections: [ConnectionID: OpaquePointer] = [:]
    /// Our own WebSockets (plain TCP), on `socketPoller`: every one by accept number, the open
    /// ones by connection, and those waiting for the client's Close.
    var socketPoller: SocketPoller?
    var polledByAccept: [UInt64: PolledWebSocket] = [:]
    var polled: [ConnectionID: PolledWebSocket] = [:]
    var closingPolled: [UInt64: PolledWebSocket] = [:]
    var webSocketDrops: [WebSocketDrop: Int] = [:]
    private var nextConnection: UInt64 = 1
    private var ticker: Timer?
    private var onAllClosed: (() -> Void)?
    private var isFlushing = false
    /// The certificate served on TLS listeners (a GTlsCertificate); replaced when a new one comes
    /// (`serve(certificateFile:)`), connections already open keeping theirs.
    private(set) var tlsCertificate: OpaquePointer?
    /// Answers an ACME CA's tls-alpn-01 validation while a challenge is up.
    let acmeResponder: ACMEChallengeResponder

    /// `limits` defaults to a total that leaves `DescriptorLimit.reserve` descriptors free;
    /// `budget`, shared by a process's workers, bounds their connections together instead.
    public init(loop: EventLoop, core: RendezvousCore, limits: ConnectionAdmission.Limits? = nil, sharing budget: SharedBudget? = nil,
                clock: any MonotonicClock = SystemClock(), log: @escaping (String) -> Void) {
        self.loop = loop
        self.core = core
        self.clock = clock
        self.log = log
        admission = ConnectionAdmission(limits: limits ?? .init(maxTotal: DescriptorLimit.connectionBudget), sharing: budget)
        server = UnsafeMutablePointer(OpaquePointer(conf_soup_server_new()))
        acmeResponder = ACMEChallengeResponder(loop: loop)
        let me = Unmanaged.passUnretained(self).toOpaque()
        soup_server_add_early_handler(server, "/v1/rooms", onEarlyRequest, me, nil)
        soup_server_add_handler(server, "/v1/rooms", onRoomsRequest, me, nil)
        soup_server_add_handler(server, "/v1/health", onHealthRequest, me, nil)
        soup_server_add_handler(server, "/v1/metrics", onMetricsRequest, me, nil)
        soup_server_add_handler(server, nil, onOtherRequest, me, nil)
        soup_server_add_websocket_handler(server, "/v1/ws", nil, nil, onWebSocket, me, nil)
        g_signal_connect_data(server, "request-read", unsafeBitCast(onRequestRead, to: GCallback.self), me, nil, GConnectFlags(rawValue: 0))
        g_signal_connect_data(server, "request-finished", unsafeBitCast(onRequestFinished, to: GCallback.self), me, nil, GConnectFlags(rawValue: 0))
        ticker = loop.schedule(every: .seconds(1)) { [unowned self] in
            let now = self.clock.now()
            for id in self.admission.expire(now: now) { self.shutDown(id) }
            self.expireClosingWebSockets(now: now)
            self.metricsBoard?.post(self.metricsSnapshot, from: self.routing?.share.index ?? 0)
            self.core.handle(.tick, now: now)
            self.flush()
            return true
        }
    }

    deinit {
        ticker?.cancel()
        for acceptor in acceptors { acceptor.stop() }
        for connection in parked.values { socketPoller?.remove(connection.fd); Glibc.close(connection.fd) }
        for socket in accepted.values { g_object_unref(socket.socket) }
        if let tlsCertificate { g_object_unref(UnsafeMutableRawPointer(tlsCertificate)) }
        for connection in connections.values { g_object_unref(UnsafeMutableRawPointer(connection)) }
        for socket in polledByAccept.values { socket.detach() }
        soup_server_disconnect(server)
        g_object_unref(server)
    }

    /// Starts listening; returns the port (useful when `port` is 0). With `tls`, serves HTTPS/WSS.
    public func listen(on endpoint: HostPort, tls: (certificate: String, key: String)? = nil, reusePort: Bool = false) throws(GLibError) -> UInt16 {
        if let tls { try serve(certificate: tls.certificate, key: tls.key) }
        let socket = try ListeningSocket(host: endpoint.host, port: endpoint.port, reusePort: reusePort)
        listeners.append(socket)
        let secure = tls != nil
        acceptors.append(ConnectionAcceptor(loop: loop, listeningFD: socket.fd, log: log) { [unowned self] fd in
            guard secure, let certificate = self.tlsCertificate else { return self.accept(fd, tls: nil) }
            let inspected = self.acmeResponder.inspect(fd) { [unowned self] validator in
                if validator, let challenge = self.acmeResponder.certificate {
                    self.accept(fd, tls: challenge, protocol: TLSClientHello.acmeProtocol)
                } else {
                    self.accept(fd, tls: self.tlsCertificate ?? certificate)
                }
            }
            if !inspected { self.accept(fd, tls: certificate) }
        })
        return socket.port
    }

    /// Serves the certificate (and chain) in `certificate` with the key in `key` (PEM files; the
    /// same file for both when it holds both) on TLS listeners from the next connection on.
    public func serve(certificate: String, key: String) throws(GLibError) {
        let loaded = try withGError { g_tls_certificate_new_from_files(certificate, key, $0) }.map(OpaquePointer.init)
        if let tlsCertificate { g_object_unref(UnsafeMutableRawPointer(tlsCertificate)) }
        tlsCertificate = loaded
    }

    /// Puts up the certificate that answers a tls-alpn-01 challenge (PEM: certificate and key),
    /// or takes it down (nil).
    public func answerTLSALPNChallenge(pem: String?) throws(GLibError) {
        try acmeResponder.setCertificate(pem: pem)
    }

    /// Closes every connection, and calls `done` once they are closed or after `grace`, whichever
    /// is first. With `endRooms`, every participant is first told its room is over (`room-closed`);
    /// without, they see a lost rendezvous and try to resume their seats (a restart).
    public func shutdown(reason: String, endRooms: Bool = true, grace: Duration = .milliseconds(500), done: @escaping () -> Void) {
        core.shutdown(reason: reason, endRooms: endRooms)
        flush()
        guard !connections.isEmpty || !polled.isEmpty else { return done() }
        var called = false
        let finish = { if !called { called = true; done() } }
        onAllClosed = finish
        loop.schedule(after: grace, finish)
    }

    // MARK: libsoup events

    func soupWebSocketOpened(_ connection: OpaquePointer, message: OpaquePointer) {
        let address = clientAddress(message)
        if let id = acceptedID(of: message) { admission.upgraded(id) }
        let id = newConnectionID()
        g_object_ref(UnsafeMutableRawPointer(connection))
        connections[id] = connection
        soup_websocket_connection_set_max_incoming_payload_size(connection, UInt(ProtocolLimits.maxMessageBytes))
        let box = ConnectionBox(server: self, id: id)
        connectSignal(UnsafeMutableRawPointer(connection), "message", onWebSocketMessage, box: box)
        connectSignal(UnsafeMutableRawPointer(connection), "closed", onWebSocketClosed, box: box)
        opened(id, address: address, host: hostHeader(message))
    }

    func webSocketMessage(_ id: ConnectionID, type: Int32, bytes: OpaquePointer?) {
        let input: RendezvousInput
        if type == Int32(SOUP_WEBSOCKET_DATA_TEXT.rawValue), let text = string(fromBytes: bytes) {
            input = .text(id, text)
        } else {
            input = .binary(id)
        }
        core.handle(input, now: clock.now())
        flush()
    }

    func webSocketClosed(_ id: ConnectionID) {
        guard let connection = connections.removeValue(forKey: id) else { return }
        closed(id)
        // Not from inside the signal emission that is using it.
        loop.schedule(after: .zero) { g_object_unref(UnsafeMutableRawPointer(connection)) }
        callOnAllClosedIfNoneLeft()
    }

    func createRoom(_ message: OpaquePointer) {
        let method = String(cString: soup_server_message_get_method(message))
        guard method == "POST" else {
            // No CORS headers, ever, and so no preflight that lets another site's page post JSON here.
            return respond(message, status: 405, ServerMessage.error(code: .badRequest, message: "use POST to create a room").json)
        }
        let requestHeaders = soup_server_message_get_request_headers(message)
        let header = { (name: String) in soup_message_headers_get_one(requestHeaders, name).map { String(cString: $0) } }
        let asked = RoomCreationPolicy.Request(contentType: header("Content-Type"), origin: header("Origin"),
                                               host: header("Host"), authorization: header("Authorization"))
        if let refusal = core.config.roomCreation.refusal(of: asked) {
            log("room refused to \(clientAddress(message)): \(refusal.message)")
            return refuse(message, refusal)
        }
        let body = soup_message_body_flatten(soup_server_message_get_request_body(message))
        defer { g_bytes_unref(body) }
        let address = clientAddress(message)
        let request: CreateRoomRequest
        do {
            request = try CreateRoomRequest(text: string(fromBytes: body) ?? "")
        } catch {
            return respond(message, status: 400, ServerMessage.error(code: .badRequest, message: "\(error)").json)
        }
        switch Result(catching: { () throws(RendezvousCore.CreateRoomFailure) in try core.createRoom(request, from: address, now: clock.now()) }) {
        case .success(let created):
            respond(message, status: 201, created.json)
        case .failure(let failure):
            refuse(message, failure)
        }
        flush()
    }

    /// 429 for this client's or network's limits and share; 503 when the whole table is full;
    /// 403 for a requester who may not make rooms here; 415 for a body not declared JSON.
    private func refuse(_ message: OpaquePointer, _ failure: RendezvousCore.CreateRoomFailure) {
        let (status, code): (UInt32, ErrorCode) = switch failure {
        case .serverFull: (503, .serverFull)
        case .rateLimited: (429, .rateLimited)
        case .forbidden: (403, .forbidden)
        case .unsupportedMediaType: (415, .badRequest)
        }
        respond(message, status: status, ServerMessage.error(code: code, message: failure.message).json)
    }

    /// On every answer, before its handler runs (the call page's files replace the policy with
    /// their own): the browser guesses no type, runs nothing, frames nothing, and keeps nothing.
    static let answerHeaders: [(String, String)] = [
        ("X-Content-Type-Options", "nosniff"),
        ("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"),
        ("Referrer-Policy", "no-referrer"),
        ("Cache-Control", "no-store"),
    ]

    func health(_ message: OpaquePointer) {
        respond(message, status: 200, .object(["status": "ok", "rooms": .number(Double(core.roomCount)),
                                               "participants": .number(Double(core.participantCount))]))
    }

    /// A file of the call page, with the headers that keep it to itself (`CallPage.headers`).
    func serve(_ message: OpaquePointer, _ asset: CallPage.Asset) {
        let headers = soup_server_message_get_response_headers(message)
        for (name, value) in CallPage.headers { soup_message_headers_replace(headers, name, value) }
        soup_server_message_set_status(message, 200, nil)
        asset.body.withCString { soup_server_message_set_response(message, asset.contentType, SOUP_MEMORY_COPY, $0, UInt(strlen($0))) }
    }

    func respond(_ message: OpaquePointer, status: UInt32, _ body: JSONValue) {
        let text = body.serialized
        soup_server_message_set_status(message, status, nil)
        text.withCString { soup_server_message_set_response(message, "application/json", SOUP_MEMORY_COPY, $0, UInt(strlen($0))) }
    }

    /// A WebSocket of either kind opened, from `address` (the client, behind a trusted proxy too).
    func opened(_ id: ConnectionID, address: String, host: String?) {
        openAddresses[id] = address
        stunParticipants?.opened(address)
        core.handle(.opened(id, address: address, host: host), now: clock.now())
        flush()
    }

    func closed(_ id: ConnectionID) {
        forgetAddress(of: id)
        core.handle(.closed(id), now: clock.now())
        flush()
    }

    /// The WebSocket is gone from this worker (closed, or handed to another that counts it).
    func forgetAddress(of id: ConnectionID) {
        if let address = openAddresses.removeValue(forKey: id) { stunParticipants?.closed(address) }
    }

    // MARK: Core outputs

    /// The core's name for a WebSocket that has just opened, libsoup's or ours.
    func newConnectionID() -> ConnectionID {
        defer { nextConnection += 1 }
        return ConnectionID(nextConnection)
    }

    /// After a WebSocket of either kind is gone: a shutdown waiting for the last one is told.
    func callOnAllClosedIfNoneLeft() {
        guard connections.isEmpty && polled.isEmpty, let onAllClosed else { return }
        self.onAllClosed = nil
        onAllClosed()
    }

    /// Carries out what the core asked for. Re-entered when a socket's end is handled while
    /// writing (a client dropped for not reading): the outer call takes what that added.
    func flush() {
        guard !isFlushing else { return }
        isFlushing = true
        defer { isFlushing = false }
        while let output = core.pollOutput() {
            switch output {
            case .send(let id, let text):
                if let socket = polled[id] {
                    socket.send(text: text)
                    continue
                }
                guard let connection = connections[id], soup_websocket_connection_get_state(connection) == SOUP_WEBSOCKET_STATE_OPEN else { continue }
                soup_websocket_connection_send_text(connection, text)
            case .close(let id, let code, let reason):
                if let socket = polled[id] {
                    socket.close(code: code, reason: reason)
                    continue
                }
                guard let connection = connections[id], soup_websocket_connection_get_state(connection) == SOUP_WEBSOCKET_STATE_OPEN else { continue }
                soup_websocket_connection_close(connection, UInt16(code), reason)
            case .log(let line):
                log(line)
            case .handOver(let id, let worker, let otherwise):
                handOver(id, to: worker, otherwise: otherwise)
            }
        }
    }
}

