internal import CGLib
internal import CConfShims
import ConfCore
import ConfRendezvous
import ConfWire

extension RendezvousClientError {
    init(connecting error: GLibError) {
        self = error.domain == "g-tls-error-quark" ? .untrustedCertificate(error.message) : .unreachable(error.message)
    }
}

/// A participant's connection to the rendezvous on libsoup 3: room creation over HTTP, then one
/// WebSocket carrying the protocol's JSON messages.
///
/// Threading: made, used and called back on its `EventLoop` thread.
public final class RendezvousClient {
    public let address: RendezvousAddress
    private let session: UnsafeMutablePointer<SoupSession>
    private var connection: OpaquePointer?
    private var onMessage: ((String) -> Void)?
    private var onClosed: ((UInt16, String) -> Void)?
    /// The signal handlers' link to us for the current connection; cut when it is replaced.
    private var events: ClientBox?
    /// `--fingerprint`: the one certificate to accept, whatever any CA says.
    public let pinned: ServerFingerprint?
    /// The certificate presented instead of `pinned`, once one was (the failure then names it).
    private(set) var presented: ServerFingerprint?

    /// With `trusting`, a wss:// rendezvous is verified against the certificates in that PEM file
    /// (a private CA, or the server's self-signed certificate) instead of the system's.
    /// A relative `caFile` is taken from the working directory (GLib wants an absolute path).
    /// `proxy` (from `RendezvousProxy.from(environment:secure:)`) is the way out, if any.
    /// With `pinned`, a wss:// rendezvous must present the certificate it names and no other: no
    /// CA is consulted, and another certificate ends the connection before anything is sent.
    public init(address: RendezvousAddress, trusting caFile: String? = nil, pinned: ServerFingerprint? = nil, proxy: RendezvousProxy? = nil,
                timeout: Duration = .seconds(10)) throws(GLibError) {
        self.address = address
        self.pinned = pinned
        // The database first: once `session` is set, a throw would run deinit, which frees it.
        let database = try caFile.map { file throws(GLibError) in
            try withGError { g_tls_file_database_new(Self.absolute(file), $0) }
        }
        let seconds = UInt32(max(1, timeout.nanosecondsClamped / 1_000_000_000))
        // TLS to an IPv6 address: named by the address, so that no server name (SNI) is sent.
        let literal = address.secure && address.endpoint.host.contains(":") ? address.endpoint.host : nil
        session = UnsafeMutablePointer(OpaquePointer(conf_soup_session_new(seconds, proxy?.url, proxy?.directHosts.joined(separator: ","),
                                                                           literal, address.endpoint.port)))
        if pinned != nil {
            // No database: every certificate then comes to `accept-certificate`, where the pin decides.
            soup_session_set_tls_database(session, nil)
        } else if let database {
            soup_session_set_tls_database(session, database)
            g_object_unref(database)
        }
    }

    /// Every request: with a pin, its certificate is judged by it (`onAcceptCertificate`).
    private func watchCertificate(of message: OpaquePointer) {
        guard pinned != nil else { return }
        connectSignal(UnsafeMutableRawPointer(message), "accept-certificate", onAcceptCertificate, box: PinBox(client: self))
    }

    /// Whether `certificate` is the pinned one; a different one is remembered for the error.
    fileprivate func accepts(_ certificate: OpaquePointer) -> Bool {
        guard let pinned else { return false }
        var digest = [UInt8](repeating: 0, count: 32)
        guard conf_tls_certificate_sha256(UnsafeMutableRawPointer(certificate), &digest) == 0 else { return false }
        let seen = ServerFingerprint(sha256: digest)
        if !seen.matches(pinned) { presented = seen }
        return seen.matches(pinned)
    }

    static func absolute(_ path: String) -> String {
        guard !path.hasPrefix("/"), let cwd = getcwd(nil, 0) else { return path }
        defer { free(cwd) }
        return String(cString: cwd) + "/" + path
    }

    deinit {
        if let connection {
            // Handlers hold boxes pointing at us: disconnect them before we go.
            g_signal_handlers_disconnect_matched(UnsafeMutableRawPointer(connection), G_SIGNAL_MATCH_DATA, 0, 0, nil, nil, nil)
            g_object_unref(UnsafeMutableRawPointer(connection))
        }
        soup_session_abort(session)
        g_object_unref(session)
    }

    /// `POST /v1/rooms`, with the rendezvous's room key when it asks for one.
    public func createRoom(_ request: CreateRoomRequest, key: RoomKey? = nil,
                           completion: @escaping (Result<RoomCreated, RendezvousClientError>) -> Void) {
        let message = soup_message_new("POST", address.createRoomURL)!
        watchCertificate(of: message)
        if let key { soup_message_headers_replace(soup_message_get_request_headers(message), "Authorization", "Bearer " + key.text) }
        let body = request.json.serialized
        let bytes = body.withCString { g_bytes_new($0, UInt(strlen($0))) }
        soup_message_set_request_body_from_bytes(message, "application/json", bytes)
        g_bytes_unref(bytes)
        let box = AsyncBox { [self, address] source, result in
            var error: UnsafeMutablePointer<GError>?
            let answer = soup_session_send_and_read_finish(UnsafeMutablePointer(source), result, &error)
            defer { g_object_unref(UnsafeMutableRawPointer(message)); if let answer { g_bytes_unref(answer) } }
            if let error { return self.explain(GLibError(taking: error)) { completion(.failure($0)) } }
            let status = soup_message_get_status(message).rawValue
            let text = string(fromBytes: answer) ?? ""
            if status == 201 {
                do {
                    completion(.success(try RoomCreated(text: text)))
                } catch {
                    completion(.failure(.badAnswer("\(address) answered with an unexpected room: \(error)")))
                }
            } else if case .error(let code, let message)? = try? ServerMessage(text: text) {
                completion(.failure(.refused(code, message)))
            } else {
                completion(.failure(.badAnswer("\(address) answered HTTP \(status) and no protocol error: is it a conf rendezvous?")))
            }
        }
        soup_session_send_and_read_async(session, message, G_PRIORITY_DEFAULT, nil, onAsyncReady, Unmanaged.passRetained(box).toOpaque())
    }

    /// Opens the WebSocket for `room` (again, after a lost connection: the old one is dropped silently).
    /// `opened` is called with nil once it is open, or with the failure.
    /// Afterwards every text message goes to `message`, and the end of the connection (with its
    /// close code and reason; 1006 when it broke without a close frame) to `closed`, once.
    public func connect(room: RoomID, opened: @escaping (RendezvousClientError?) -> Void,
                        message: @escaping (String) -> Void,
                        closed: @escaping (UInt16, String) -> Void) {
        dropConnection()
        onMessage = message
        onClosed = closed
        let request = soup_message_new("GET", address.webSocketURL(room: room))!
        watchCertificate(of: request)
        let box = AsyncBox { [weak self, address] source, result in
            defer { g_object_unref(UnsafeMutableRawPointer(request)) }
            var error: UnsafeMutablePointer<GError>?
            let connection = soup_session_websocket_connect_finish(UnsafeMutablePointer(source), result, &error)
            if let error {
                let failure = GLibError(taking: error)
                let status = soup_message_get_status(request).rawValue
                if status != 0 && status != 101 {
                    return opened(.badAnswer("\(address) refused the WebSocket upgrade (HTTP \(status)): is it a conf rendezvous?"))
                }
                guard let self else { return opened(RendezvousClientError(connecting: failure)) }
                return self.explain(failure, then: opened)
            }
            guard let self, let connection else { return }
            self.connection = connection
            soup_websocket_connection_set_max_incoming_payload_size(connection, UInt(ProtocolLimits.maxMessageBytes))
            let events = ClientBox(client: self)
            self.events = events
            connectSignal(UnsafeMutableRawPointer(connection), "message", onClientMessage, box: events)
            connectSignal(UnsafeMutableRawPointer(connection), "closed", onClientClosed, box: events)
            opened(nil)
        }
        soup_session_websocket_connect_async(session, request, nil, nil, G_PRIORITY_DEFAULT, nil, onAsyncReady,
                                             Unmanaged.passRetained(box).toOpaque())
    }

    /// A plain (ws://) connection that was cut instead of answered may have reached a TLS
    /// rendezvous, which drops an HTTP request it cannot read. Asks once over TLS: an answer, or a
    /// certificate the TLS layer could judge, means the server speaks TLS, and the user is told to
    /// use wss://. Otherwise (or when refused or timed out: no server, nothing to learn) the
    /// original failure is reported.
    private func explain(_ failure: GLibError, then report: @escaping (RendezvousClientError) -> Void) {
        if let pinned, let presented { return report(.wrongCertificate(expected: pinned, presented: presented)) }
        let plain = RendezvousClientError(connecting: failure)
        let timedOut = failure.domain == "g-io-error-quark" && failure.code == Int32(G_IO_ERROR_TIMED_OUT.rawValue)
        guard !address.secure, !failure.isConnectionRefused, !timedOut else { return report(plain) }
        let secure = RendezvousAddress(endpoint: address.endpoint, secure: true)
        let probe = soup_message_new("GET", secure.httpBase + "/v1/health")!
        let box = AsyncBox { source, result in
            var error: UnsafeMutablePointer<GError>?
            let answer = soup_session_send_and_read_finish(UnsafeMutablePointer(source), result, &error)
            g_object_unref(UnsafeMutableRawPointer(probe))
            if let answer { g_bytes_unref(answer) }
            var speaksTLS = true
            if let error {
                let tlsError = GLibError(taking: error)
                speaksTLS = tlsError.domain == "g-tls-error-quark" && tlsError.code == Int32(G_TLS_ERROR_BAD_CERTIFICATE.rawValue)
            }
            report(speaksTLS ? .badAnswer("the rendezvous at \(self.address) speaks TLS: use --server \(secure) (or leave out ws://), "
                                          + "with --fingerprint FP if it has its own certificate, --ca FILE if one of a private CA") : plain)
        }
        soup_session_send_and_read_async(session, probe, G_PRIORITY_DEFAULT, nil, onAsyncReady, Unmanaged.passRetained(box).toOpaque())
    }

    /// Forgets the current connection: nothing more from it reaches the owner.
    private func dropConnection() {
        events?.client = nil
        events = nil
        guard let old = connection else { return }
        connection = nil
        if soup_websocket_connection_get_state(old) == SOUP_WEBSOCKET_STATE_OPEN { soup_websocket_connection_close(old, 1001, nil) }
        g_object_unref(UnsafeMutableRawPointer(old))
    }

    public func send(_ message: ClientMessage) {
        guard let connection, soup_websocket_connection_get_state(connection) == SOUP_WEBSOCKET_STATE_OPEN else { return }
        soup_websocket_connection_send_text(connection, message.json.serialized)
    }

    /// Starts the closing handshake; `closed` follows.
    public func close(code: UInt16 = 1000, reason: String = "") {
        guard let connection, soup_websocket_connection_get_state(connection) == SOUP_WEBSOCKET_STATE_OPEN else { return }
        soup_websocket_connection_close(connection, code, reason)
    }

    fileprivate func received(type: Int32, bytes: OpaquePointer?) {
        guard type == Int32(SOUP_WEBSOCKET_DATA_TEXT.rawValue), let text = string(fromBytes: bytes) else { return }
        onMessage?(text)
    }

    fileprivate func ended() {
        guard let connection else { return }
        let code = soup_websocket_connection_get_close_code(connection)
        let reason = soup_websocket_connection_get_close_data(connection).map { String(cString: $0) } ?? ""
        let closed = onClosed
        onClosed = nil
        onMessage = nil
        closed?(code == 0 ? 1006 : code, reason)
    }
}

private final class ClientBox {
    weak var client: RendezvousClient?
    init(client: RendezvousClient) { self.client = client }
}

private let onClientMessage: @convention(c) (OpaquePointer?, Int32, OpaquePointer?, UnsafeMutableRawPointer?) -> Void = { _, type, bytes, data in
    Unmanaged<ClientBox>.fromOpaque(data!).takeUnretainedValue().client?.received(type: type, bytes: bytes)
}

private let onClientClosed: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void = { _, data in
    Unmanaged<ClientBox>.fromOpaque(data!).takeUnretainedValue().client?.ended()
}

private final class PinBox {
    weak var client: RendezvousClient?
    init(client: RendezvousClient) { self.client = client }
}

/// SoupMessage::accept-certificate: TRUE accepts the certificate despite its errors.
private let onAcceptCertificate: @convention(c) (OpaquePointer?, OpaquePointer?, GTlsCertificateFlags, UnsafeMutableRawPointer?) -> gboolean = {
    _, certificate, _, data in
    guard let data, let certificate, let client = Unmanaged<PinBox>.fromOpaque(data).takeUnretainedValue().client else { return 0 }
    return client.accepts(certificate) ? 1 : 0
}
