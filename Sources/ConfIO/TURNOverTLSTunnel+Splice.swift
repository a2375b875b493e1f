internal import CGLib

/// One connection libnice opened to the tunnel, carried over TLS: connect to the server, wrap the
/// connection in TLS (verified against the server's name), then copy both ways until either side
/// closes (`g_io_stream_splice_async`). Keeps itself alive until the splice ends.
final class Splice {
    private weak var tunnel: TURNOverTLSTunnel?
    private let local: UnsafeMutablePointer<GSocketConnection>
    private let serverName: String
    private var retained: Unmanaged<Splice>?

    init(tunnel: TURNOverTLSTunnel, local: UnsafeMutablePointer<GSocketConnection>) {
        self.tunnel = tunnel
        self.local = local
        serverName = tunnel.serverName
        g_object_ref(local)
    }

    deinit { g_object_unref(local) }

    func start() {
        guard let tunnel else { return }
        retained = Unmanaged.passRetained(self)
        g_socket_client_connect_to_host_async(tunnel.client, tunnel.address, tunnel.port, nil, onConnected, retained!.toOpaque())
    }

    fileprivate func connected(_ result: OpaquePointer?) {
        guard let tunnel else { return finish() }
        let remote: UnsafeMutablePointer<GSocketConnection>
        do {
            remote = try withGError { g_socket_client_connect_to_host_finish(tunnel.client, result, $0) }!
        } catch {
            tunnel.failed("cannot connect: \(error.message)")
            return finish()
        }
        defer { g_object_unref(remote) }
        let identity = g_network_address_new(serverName, tunnel.port)!
        defer { g_object_unref(UnsafeMutableRawPointer(identity)) }
        let tls: UnsafeMutablePointer<GIOStream>
        do throws(GLibError) {
            tls = try withGError { error in
                g_tls_client_connection_new(UnsafeMutablePointer(OpaquePointer(remote)), identity, error).map { UnsafeMutablePointer(OpaquePointer($0)) }
            }!
        } catch {
            tunnel.failed("no TLS here: \(error.message) (is glib-networking installed?)")
            return finish()
        }
        defer { g_object_unref(tls) }
        if let database = tunnel.database {
            g_tls_connection_set_database(UnsafeMutablePointer(OpaquePointer(tls)), UnsafeMutablePointer(database))
        }
        let flags = GIOStreamSpliceFlags(rawValue: G_IO_STREAM_SPLICE_CLOSE_STREAM1.rawValue | G_IO_STREAM_SPLICE_CLOSE_STREAM2.rawValue)
        g_io_stream_splice_async(UnsafeMutablePointer(OpaquePointer(local)), tls, flags, G_PRIORITY_DEFAULT, nil, onSpliced,
                                 retained!.toOpaque())
    }

    fileprivate func spliced(_ result: OpaquePointer?) {
        do {
            _ = try withGError { g_io_stream_splice_finish(result, $0) }
        } catch where !error.message.isEmpty {
            // A handshake refused (an untrusted certificate) ends here; so does a server that hangs up.
            let text = error.message.lowercased()
            if text.contains("certificate") || text.contains("tls") {
                tunnel?.failed(error.message)
            }
        } catch {}
        finish()
    }

    private func finish() {
        g_io_stream_close(UnsafeMutablePointer(OpaquePointer(local)), nil, nil)
        let retained = self.retained
        self.retained = nil
        retained?.release()
    }
}

private let onConnected: GAsyncReadyCallback = { _, result, data in
    Unmanaged<Splice>.fromOpaque(data!).takeUnretainedValue().connected(result)
}

private let onSpliced: GAsyncReadyCallback = { _, result, data in
    Unmanaged<Splice>.fromOpaque(data!).takeUnretainedValue().spliced(result)
}
