internal import CGLib
internal import CConfShims
import ConfCore
import ConfWire
import ConfRendezvous
#if canImport(Glibc)
import Glibc
#endif

/// A connection handed to libsoup, as the server tracks it until libsoup lets go of it.
struct AcceptedSocket {
    /// Our own reference: the descriptor stays valid (and ours to shut down) until `socketGone`.
    let socket: UnsafeMutablePointer<GSocket>
    let peer: String
}

extension RendezvousServer {
    /// A descriptor from `ConnectionAcceptor`: kept and handed to libsoup, or refused at once.
    /// A plain connection's request line is read first (`park`) unless it was `routed` here
    /// already: a WebSocket is served by our own (`serveWebSocket`), and with several workers
    /// by the worker that holds its room.
    /// With `protocol`, the TLS handshake negotiates that application protocol (ALPN).
    func accept(_ fd: Int32, tls certificate: OpaquePointer?, routed: Bool = false, protocol: String? = nil) {
        if certificate == nil, !routed { return park(fd) }
        guard let socket = try? withGError({ g_socket_new_from_fd(fd, $0) }) ?? nil else { Glibc.close(fd); return }
        guard let remote = try? withGError({ g_socket_get_remote_address(socket, $0) }) ?? nil,
              let local = try? withGError({ g_socket_get_local_address(socket, $0) }) ?? nil else {
            g_object_unref(socket)  // Closes fd: the peer is already gone.
            return
        }
        defer { g_object_unref(remote); g_object_unref(local) }
        let peer = Self.peerName(remote)
        guard let id = admit(fd, from: peer.host, answering: certificate == nil) else {
            g_object_unref(socket)
            return
        }
        conf_set_tcp_nodelay(fd, 1)
        let connection = g_socket_connection_factory_create_connection(socket)!
        let stream: UnsafeMutablePointer<GIOStream>
        if let certificate {
            guard let tls = try? withGError({ g_tls_server_connection_new(UnsafeMutablePointer(OpaquePointer(connection)), UnsafeMutablePointer(certificate), $0) }) ?? nil else {
                g_object_unref(connection)
                g_object_unref(socket)
                admission.closed(id)
                return
            }
            conf_object_set_boolean(tls, "require-close-notify", 0)
            if let `protocol` { conf_tls_advertise_protocol(tls, `protocol`) }
            stream = UnsafeMutablePointer(OpaquePointer(tls))
        } else {
            stream = UnsafeMutablePointer(OpaquePointer(connection))
        }
        accepted[id] = AcceptedSocket(socket: socket, peer: peer.key)
        acceptedByPeer[peer.key] = id
        let box = Unmanaged.passRetained(AcceptedBox(server: self, id: id)).toOpaque()
        g_object_weak_ref(UnsafeMutablePointer(OpaquePointer(connection)), onConnectionFinalized, box)
        _ = try? withGError { soup_server_accept_iostream(server, stream, local, remote, $0) }
        if certificate != nil { g_object_unref(connection) }  // The TLS connection holds its base stream.
        g_object_unref(stream)
    }

    /// A new connection's accept number, or nil when `ConnectionAdmission` refuses it (then a
    /// plain-text answer says why when `answering`: it fits in the empty send buffer of a new
    /// socket; a TLS client would only see garbage, so it just sees the connection close).
    func admit(_ fd: Int32, from host: String, answering: Bool) -> UInt64? {
        let id = nextAccepted
        nextAccepted += 1
        switch admission.accept(id, from: ClientAddress(host), now: clock.now()) {
        case .refuse(let refusal):
            if answering { conf_send_best_effort(fd, Self.refusalResponse(refusal)) }
            return nil
        case .admit(let evicting):
            if let evicting { shutDown(evicting) }
            return id
        }
    }

    /// libsoup let go of connection `id` (closed by either side, or refused by libsoup).
    func socketGone(_ id: UInt64) {
        admission.closed(id)
        guard let socket = accepted.removeValue(forKey: id) else { return }
        if acceptedByPeer[socket.peer] == id { acceptedByPeer[socket.peer] = nil }
        g_object_unref(socket.socket)
    }

    /// Ends connection `id` from under libsoup: its next read sees the end of the stream and
    /// libsoup closes it. (Closing the descriptor instead would leave libsoup polling a number
    /// the next accept may reuse.)
    func shutDown(_ id: UInt64) {
        if closeParked(id) || abortPolled(id) { return }
        guard let socket = accepted[id] else { return }
        g_socket_shutdown(socket.socket, 1, 1, nil)
    }

    /// The accept number of the connection a libsoup message arrived on.
    func acceptedID(of message: OpaquePointer) -> UInt64? {
        guard let remote = soup_server_message_get_remote_address(message) else { return nil }
        return acceptedByPeer[Self.peerName(remote).key]
    }

    func requestRead(_ message: OpaquePointer) {
        if let id = acceptedID(of: message) { admission.requestRead(id, now: clock.now()) }
        let headers = soup_server_message_get_response_headers(message)
        for (name, value) in Self.answerHeaders { soup_message_headers_replace(headers, name, value) }
        closeAfterAnswerIfRouting(message)
    }

    func requestFinished(_ message: OpaquePointer) {
        if let id = acceptedID(of: message) { admission.requestAnswered(id, now: clock.now()) }
    }

    static func peerName(_ address: UnsafeMutablePointer<GSocketAddress>) -> (host: String, key: String) {
        let inet = UnsafeMutablePointer<GInetSocketAddress>(OpaquePointer(address))
        guard g_type_check_instance_is_a(UnsafeMutablePointer(OpaquePointer(address)), g_inet_socket_address_get_type()) != 0,
              let text = g_inet_address_to_string(g_inet_socket_address_get_address(inet)) else { return ("unknown", "unknown") }
        defer { g_free(text) }
        let host = String(cString: text)
        return (host, "\(host) \(g_inet_socket_address_get_port(inet))")
    }

    static func refusalResponse(_ refusal: ConnectionAdmission.Refusal) -> String {
        let (status, body): (String, JSONValue)
        switch refusal {
        case .tooManyFromClient:
            status = "429 Too Many Requests"
            body = .object(["type": "error", "code": "too-many-connections",
                            "message": "too many connections from your address: close some and try again"])
        case .full:
            status = "503 Service Unavailable"
            body = ServerMessage.error(code: .serverFull, message: "this rendezvous holds as many connections as it may: try later").json
        }
        return ClosingHTTPResponse.text(status: status, body)
    }
}

/// The weak-reference payload of one accepted connection.
private final class AcceptedBox: @unchecked Sendable {
    weak var server: RendezvousServer?
    let id: UInt64
    init(server: RendezvousServer, id: UInt64) {
        self.server = server
        self.id = id
    }
}

/// GWeakNotify: (data, the object being finalized). libsoup drops its last reference on the loop
/// thread; glib-networking's TLS handshake threads may hold one a moment longer, so from any
/// other thread this hops to the loop (our own reference keeps the GSocket valid meanwhile).
private let onConnectionFinalized: GWeakNotify = { data, _ in
    let box = Unmanaged<AcceptedBox>.fromOpaque(data!).takeRetainedValue()
    guard let server = box.server else { return }
    if server.loop.isCurrentThread {
        server.socketGone(box.id)
    } else {
        server.loop.invoke { box.server?.socketGone(box.id) }
    }
}

// SoupServer "request-read" / "request-finished": (server, message, user data).
let onRequestRead: @convention(c) (OpaquePointer?, OpaquePointer?, UnsafeMutableRawPointer?) -> Void = { _, message, data in
    guard let message else { return }
    Unmanaged<RendezvousServer>.fromOpaque(data!).takeUnretainedValue().requestRead(message)
}

let onRequestFinished: @convention(c) (OpaquePointer?, OpaquePointer?, UnsafeMutableRawPointer?) -> Void = { _, message, data in
    guard let message else { return }
    Unmanaged<RendezvousServer>.fromOpaque(data!).takeUnretainedValue().requestFinished(message)
}

extension RendezvousServer {
    /// Who sent `message`: the peer, or behind a trusted load balancer the last address of its
    /// `X-Forwarded-For` (the one that balancer added; earlier ones could be anything the client
    /// wrote). Rate limits and room quotas count by this.
    func clientAddress(_ message: OpaquePointer) -> String {
        let peer = remoteHost(message)
        guard trustedProxies.contains(peer),
              let header = soup_message_headers_get_list(soup_server_message_get_request_headers(message), "X-Forwarded-For")
        else { return peer }
        return clientAddress(peer: peer, forwardedFor: String(cString: header))
    }

    /// The request's Host header when it came to us directly (not through a trusted proxy).
    func hostHeader(_ message: OpaquePointer) -> String? {
        guard !trustedProxies.contains(remoteHost(message)),
              let host = soup_message_headers_get_one(soup_server_message_get_request_headers(message), "Host") else { return nil }
        return String(cString: host)
    }

    /// The same for a connection from `peer` whose request had this `X-Forwarded-For` (several
    /// headers joined with commas, as HTTP allows).
    func clientAddress(peer: String, forwardedFor header: String?) -> String {
        guard trustedProxies.contains(peer), let header else { return peer }
        let entry = header.split(separator: ",").last ?? ""
        let last = String(entry.filter { $0 != " " && $0 != "\t" })
        return Self.isAddress(last) ? last : peer
    }

    /// An IPv4 or IPv6 address in text, nothing else.
    public static func isAddress(_ text: String) -> Bool {
        guard !text.isEmpty, text.count <= 45 else { return false }
        guard let address = text.withCString({ g_inet_address_new_from_string($0) }) else { return false }
        g_object_unref(address)
        return true
    }
}
