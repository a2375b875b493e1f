internal import CGLib
import ConfWire

/// TURN over TLS for libnice, which cannot do it: its "TLS" relay type is Google Talk's
/// pseudo-TLS (a fixed fake handshake) that real TURN servers refuse. TURN over TLS is TURN over
/// TCP inside TLS (RFC 5766 section 2.1, `turns:` in RFC 7065), so the tunnel listens on a
/// loopback TCP port that libnice takes as a TURN-over-TCP server, and carries each connection
/// libnice opens over its own TLS connection to the real server, whose certificate is checked
/// against `serverName` and the system's authorities (or `--ca`).
///
/// Threading: the event loop thread; GIO calls back on the thread-default context it was made on.
public final class TURNOverTLSTunnel {
    public let localPort: UInt16
    /// A TLS connection failed (unreachable, refused, an untrusted certificate): said once.
    public var onFailure: ((String) -> Void)?
    let serverName: String
    let address: String
    let port: UInt16
    let database: OpaquePointer?
    let client: UnsafeMutablePointer<GSocketClient>
    private let service: UnsafeMutablePointer<GSocketService>
    private var reported = false

    /// `address` is where to connect (an IP address or `serverName` itself).
    public init(serverName: String, address: String, port: UInt16, trusting caFile: String?) throws(GLibError) {
        database = try caFile.map { file throws(GLibError) in
            OpaquePointer(try withGError { g_tls_file_database_new(RendezvousClient.absolute(file), $0) })
        }
        service = g_socket_service_new()
        let listener = UnsafeMutablePointer<GSocketListener>(OpaquePointer(service))
        let loopback = g_inet_socket_address_new_from_string("127.0.0.1", 0)!
        defer { g_object_unref(loopback) }
        var effective: UnsafeMutablePointer<GSocketAddress>?
        do {
            _ = try withGError {
                g_socket_listener_add_address(listener, loopback, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, nil, &effective, $0)
            }
        } catch {
            g_object_unref(service)
            if let database { g_object_unref(UnsafeMutableRawPointer(database)) }
            throw error
        }
        localPort = g_inet_socket_address_get_port(UnsafeMutablePointer(OpaquePointer(effective)))
        g_object_unref(effective)
        client = g_socket_client_new()
        g_socket_client_set_timeout(client, 10)
        // Straight to the TURN server, as documented: no proxy (and no GIO proxy modules loaded).
        g_socket_client_set_enable_proxy(client, 0)
        self.serverName = serverName
        self.address = address
        self.port = port
        connectSignal(service, "incoming", onIncoming, box: TunnelBox(self))
        g_socket_service_start(service)
    }

    deinit { close() }

    private var closed = false

    /// Stops taking connections; those being carried end when libnice closes them.
    public func close() {
        guard !closed else { return }
        closed = true
        g_socket_service_stop(service)
        g_socket_listener_close(UnsafeMutablePointer<GSocketListener>(OpaquePointer(service)))
        g_object_unref(service)
        g_object_unref(client)
        if let database { g_object_unref(UnsafeMutableRawPointer(database)) }
    }

    /// libnice connected: open the TLS side (carried on by `Splice`).
    fileprivate func incoming(_ connection: UnsafeMutablePointer<GSocketConnection>) {
        guard !closed else { return }
        Splice(tunnel: self, local: connection).start()
    }

    func failed(_ why: String) {
        guard !reported else { return }
        reported = true
        onFailure?("TURN over TLS to \(HostPort(host: serverName, port: port)): \(why)")
    }
}

private final class TunnelBox {
    weak var tunnel: TURNOverTLSTunnel?
    init(_ tunnel: TURNOverTLSTunnel) { self.tunnel = tunnel }
}

/// GSocketService "incoming": (service, connection, source object, user data) -> handled.
private let onIncoming: @convention(c) (OpaquePointer?, UnsafeMutablePointer<GSocketConnection>?, OpaquePointer?, UnsafeMutableRawPointer?) -> gboolean = {
    _, connection, _, data in
    guard let connection, let tunnel = Unmanaged<TunnelBox>.fromOpaque(data!).takeUnretainedValue().tunnel else { return 0 }
    tunnel.incoming(connection)
    return 1
}
