internal import CGLib
#if canImport(Glibc)
import Glibc
#endif

/// A listening TCP socket built by hand rather than with `soup_server_listen_local`, whose backlog
/// of 10 makes thousands of connecting clients wait (C-INTEROP.md, "Scale traps").
final class ListeningSocket {
    let socket: UnsafeMutablePointer<GSocket>
    let port: UInt16
    var fd: Int32 { g_socket_get_fd(socket) }

    /// "::" listens on IPv6 and IPv4 alike (IPV6_V6ONLY off), or on IPv4 alone where this machine
    /// has IPv6 turned off.
    /// With `reusePort`, other sockets with it may listen on the same port (SO_REUSEPORT): the
    /// kernel spreads new connections between them (the rendezvous's workers).
    convenience init(host: String, port: UInt16, backlog: Int32 = 4096, reusePort: Bool = false) throws(GLibError) {
        do {
            try self.init(literal: host == "localhost" ? "127.0.0.1" : host, port: port, backlog: backlog, reusePort: reusePort)
        } catch where host == "::" {
            try self.init(literal: "0.0.0.0", port: port, backlog: backlog, reusePort: reusePort)
        }
    }

    private init(literal: String, port: UInt16, backlog: Int32, reusePort: Bool) throws(GLibError) {
        guard let address: UnsafeMutablePointer<GSocketAddress> = g_inet_socket_address_new_from_string(literal, UInt32(port)) else {
            throw GLibError(domain: "conf", code: 0,
                            message: "'\(literal)' is not an IP address of this machine: use an address like 0.0.0.0 or 127.0.0.1")
        }
        defer { g_object_unref(address) }
        let family = g_socket_address_get_family(address)
        let socket = try withGError { g_socket_new(family, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, $0) }!
        do throws(GLibError) {
            if family == G_SOCKET_FAMILY_IPV6 { _ = try withGError { g_socket_set_option(socket, Int32(IPPROTO_IPV6), IPV6_V6ONLY, 0, $0) } }
            if reusePort {
                // g_socket_bind turns SO_REUSEPORT off again on stream sockets: bind(2) here.
                _ = try withGError { g_socket_set_option(socket, SOL_SOCKET, SO_REUSEADDR, 1, $0) }
                _ = try withGError { g_socket_set_option(socket, SOL_SOCKET, SO_REUSEPORT, 1, $0) }
                var native = sockaddr_storage()
                let length = g_socket_address_get_native_size(address)
                _ = try withGError { g_socket_address_to_native(address, &native, gsize(length), $0) }
                let bound = withUnsafePointer(to: &native) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(g_socket_get_fd(socket), $0, socklen_t(length)) }
                }
                if bound != 0 {
                    throw GLibError(domain: "conf", code: errno,
                                    message: "Error binding to address \(literal):\(port): \(String(cString: strerror(errno)))")
                }
            } else {
                _ = try withGError { g_socket_bind(socket, address, 1, $0) }
            }
            g_socket_set_listen_backlog(socket, backlog)
            _ = try withGError { g_socket_listen(socket, $0) }
            let local = try withGError { g_socket_get_local_address(socket, $0) }!
            self.port = g_inet_socket_address_get_port(UnsafeMutablePointer(OpaquePointer(local)))
            g_object_unref(local)
        } catch {
            g_object_unref(socket)
            throw error
        }
        self.socket = socket
    }

    deinit { g_object_unref(socket) }
}

extension GLibError {
    init(domain: String, code: Int32, message: String) {
        self.domain = domain
        self.code = code
        self.message = message
    }
}
