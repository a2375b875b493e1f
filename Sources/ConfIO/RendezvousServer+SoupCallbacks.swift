internal import CGLib
internal import CConfShims
import ConfCore
import ConfWeb
import ConfWire
import ConfRendezvous
#if canImport(Glibc)
import Glibc
#endif

// libsoup's callbacks into RendezvousServer, and the one answer given before libsoup reads a body.

func remoteHost(_ message: OpaquePointer) -> String {
    soup_server_message_get_remote_host(message).map { String(cString: $0) } ?? "unknown"
}

final class ConnectionBox {
    unowned let server: RendezvousServer
    let id: ConnectionID
    init(server: RendezvousServer, id: ConnectionID) {
        self.server = server
        self.id = id
    }
}

func rendezvousServer(_ data: UnsafeMutableRawPointer?) -> RendezvousServer {
    Unmanaged<RendezvousServer>.fromOpaque(data!).takeUnretainedValue()
}

// Signatures copied from soup-server.h and soup-websocket-connection.h.

let onEarlyRequest: SoupServerCallback = { _, message, _, _, data in
    guard let message else { return }
    let headers = soup_server_message_get_request_headers(message)
    if soup_message_headers_get_encoding(headers) == SOUP_ENCODING_CHUNKED {
        refuseBeforeBody(message, status: "411 Length Required", "send the request body with a Content-Length")
    } else if soup_message_headers_get_content_length(headers) > Int64(ProtocolLimits.maxCreateBodyBytes) {
        refuseBeforeBody(message, status: "413 Payload Too Large", "the request body is larger than \(ProtocolLimits.maxCreateBodyBytes) bytes")
    }
}

/// Setting a status in an early handler does not stop libsoup 3.2 from reading the whole body
/// first: take the connection, answer on it ourselves and close it, so the body is never read.
/// (Only `/v1/rooms` has this handler.)
func refuseBeforeBody(_ message: OpaquePointer, status: String, _ text: String) {
    let response = ClosingHTTPResponse.text(status: status, ServerMessage.error(code: .tooLarge, message: text).json)
    guard let stream = soup_server_message_steal_connection(message) else { return }
    var written: gsize = 0
    _ = response.withCString { g_output_stream_write_all(g_io_stream_get_output_stream(stream), $0, UInt(strlen($0)), &written, nil, nil) }
    g_io_stream_close(stream, nil, nil)
    g_object_unref(stream)
}

let onRoomsRequest: SoupServerCallback = { _, message, _, _, data in
    guard let message else { return }
    rendezvousServer(data).createRoom(message)
}

let onHealthRequest: SoupServerCallback = { _, message, _, _, data in
    guard let message else { return }
    rendezvousServer(data).health(message)
}

let onMetricsRequest: SoupServerCallback = { _, message, _, _, data in
    guard let message else { return }
    rendezvousServer(data).metrics(message)
}

let onOtherRequest: SoupServerCallback = { _, message, path, _, data in
    guard let message else { return }
    let path = path.map { String(cString: $0) } ?? "/"
    let method = soup_server_message_get_method(message).map { String(cString: $0) } ?? ""
    if method == "GET" || method == "HEAD", let asset = CallPage.asset(at: path) {
        return rendezvousServer(data).serve(message, asset)
    }
    rendezvousServer(data).respond(message, status: 404, ServerMessage.error(
        code: .notFound, message: "no such resource \(path): the rendezvous serves the call page at /, POST /v1/rooms and the WebSocket /v1/ws").json)
}

let onWebSocket: SoupServerWebsocketCallback = { _, message, _, connection, data in
    guard let message, let connection else { return }
    rendezvousServer(data).soupWebSocketOpened(connection, message: message)
}

let onWebSocketMessage: @convention(c) (OpaquePointer?, Int32, OpaquePointer?, UnsafeMutableRawPointer?) -> Void = { _, type, bytes, data in
    let box = Unmanaged<ConnectionBox>.fromOpaque(data!).takeUnretainedValue()
    box.server.webSocketMessage(box.id, type: type, bytes: bytes)
}

let onWebSocketClosed: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void = { _, data in
    let box = Unmanaged<ConnectionBox>.fromOpaque(data!).takeUnretainedValue()
    box.server.webSocketClosed(box.id)
}
