import Foundation

/// A blocking TCP connection to 127.0.0.1 with receive timeouts, for speaking HTTP and WebSocket by
/// hand: hostile-input tests need to send what no well-behaved client library would.
final class TCPConnection {
    let fd: Int32

    /// With `source`, the connection comes from that loopback address (any of 127.0.0.0/8), so a
    /// test can play several clients.
    init(port: UInt16, from source: String? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else { close(fd); throw TestFailure("bind to \(source) failed: errno \(errno)") }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else { close(fd); throw TestFailure("connect to 127.0.0.1:\(port) failed: errno \(errno)") }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    func write(_ bytes: [UInt8]) {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            sent += n
        }
    }

    /// Set once a read found the end of the stream or a reset (not a timeout).
    private(set) var peerEnded = false

    /// Up to `count` bytes; empty at end of stream, reset or timeout.
    func read(upTo count: Int = 65_536) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        let n = recv(fd, &buffer, count, 0)
        if n == 0 || (n < 0 && errno == ECONNRESET) { peerEnded = true }
        return n > 0 ? Array(buffer[..<n]) : []
    }

    func readExactly(_ count: Int) -> [UInt8]? {
        var out: [UInt8] = []
        while out.count < count {
            let chunk = read(upTo: count - out.count)
            if chunk.isEmpty { return nil }
            out += chunk
        }
        return out
    }
}

enum HTTP {
    /// One HTTP/1.1 request with `Connection: close`; returns the status and the body.
    /// With `stopsAtLength`, reading stops once the body Content-Length announces is in (a server
    /// that keeps the connection open despite `Connection: close`, as Chromium's DevTools does).
    static func request(port: UInt16, method: String, path: String, body: String = "", headers: [String] = [],
                        stopsAtLength: Bool = false) throws -> (Int, String) {
        let connection = try TCPConnection(port: port)
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        head += "Content-Type: application/json\r\n"
        if !headers.contains(where: { $0.lowercased().hasPrefix("content-length") }) { head += "Content-Length: \(body.utf8.count)\r\n" }
        for header in headers { head += header + "\r\n" }
        let (status, text) = try response(to: head + "\r\n" + body, on: connection, stopsAtLength: stopsAtLength)
        let bodyStart = text.range(of: "\r\n\r\n").map { String(text[$0.upperBound...]) } ?? ""
        return (status, bodyStart)
    }

    /// Writes `request` as it is and reads until the server closes: the status and the whole response.
    static func response(to request: String, on connection: TCPConnection, stopsAtLength: Bool = false) throws -> (Int, String) {
        connection.write(Array(request.utf8))
        var response: [UInt8] = []
        while true {
            let chunk = connection.read()
            if chunk.isEmpty { break }
            response += chunk
            if stopsAtLength, let length = Self.announcedLength(response), response.count >= length { break }
        }
        let text = String(decoding: response, as: UTF8.self)
        guard let statusText = text.split(separator: " ").dropFirst().first, let status = Int(statusText) else {
            throw TestFailure("no HTTP response: \(text)")
        }
        return (status, text)
    }

    /// The whole response's length in bytes once its head is in and names a Content-Length.
    private static func announcedLength(_ response: [UInt8]) -> Int? {
        let text = String(decoding: response, as: UTF8.self)
        guard let end = text.range(of: "\r\n\r\n") else { return nil }
        let head = text[..<end.lowerBound].lowercased()
        guard let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
              let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) else { return nil }
        return text[..<end.upperBound].utf8.count + length
    }
}

/// A hand-made WebSocket client (RFC 6455), able to send malformed and oversized frames.
final class RawWebSocket {
    let connection: TCPConnection

    enum Frame: Equatable {
        case text(String)
        case close(UInt16)
        case other(UInt8)
    }

    /// `room`: the room the join or resume will name, in the URL as clients send it (a rendezvous
    /// with several workers hands the connection to the one holding the room). `pipelined`: a
    /// first message sent with the handshake, in the same write, before its answer.
    init(port: UInt16, room: String? = nil, from source: String? = nil, path: String = "/v1/ws", pipelined: String? = nil,
         headers: [String] = []) throws {
        let path = path + (room.map { "?room=\($0)" } ?? "")
        connection = try TCPConnection(port: port, from: source)
        let request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n" + headers.map { $0 + "\r\n" }.joined() + "\r\n"
        connection.write(Array(request.utf8) + (pipelined.map { Self.frame(opcode: 0x1, payload: Array($0.utf8)) } ?? []))
        var head: [UInt8] = []
        while !head.ends(with: Array("\r\n\r\n".utf8)) {
            guard let byte = connection.readExactly(1) else { throw TestFailure("no WebSocket handshake answer") }
            head += byte
        }
        guard String(decoding: head, as: UTF8.self).hasPrefix("HTTP/1.1 101") else {
            throw TestFailure("WebSocket upgrade refused: \(String(decoding: head, as: UTF8.self))")
        }
    }

    func sendText(_ text: String) { sendFrame(opcode: 0x1, payload: Array(text.utf8)) }

    func sendFrame(opcode: UInt8, payload: [UInt8], fin: Bool = true) { connection.write(Self.frame(opcode: opcode, payload: payload, fin: fin)) }

    /// A client frame: always masked (RFC 6455 section 5.3).
    static func frame(opcode: UInt8, payload: [UInt8], fin: Bool = true) -> [UInt8] {
        var frame: [UInt8] = [(fin ? 0x80 : 0) | opcode]
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        switch payload.count {
        case ..<126: frame.append(0x80 | UInt8(payload.count))
        case ..<65_536: frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default:
            frame.append(0x80 | 127)
            for shift in stride(from: 56, through: 0, by: -8) { frame.append(UInt8((payload.count >> shift) & 0xFF)) }
        }
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        return frame
    }

    /// The next frame from the server, or nil when the connection ended or nothing came in 5 s.
    func receive() -> Frame? {
        guard let head = connection.readExactly(2) else { return nil }
        var length = Int(head[1] & 0x7F)
        if length == 126 {
            guard let ext = connection.readExactly(2) else { return nil }
            length = Int(ext[0]) << 8 | Int(ext[1])
        } else if length == 127 {
            guard let ext = connection.readExactly(8) else { return nil }
            length = ext.reduce(0) { $0 << 8 | Int($1) }
        }
        guard let payload = length == 0 ? [] : connection.readExactly(length) else { return nil }
        switch head[0] & 0x0F {
        case 0x1: return .text(String(decoding: payload, as: UTF8.self))
        case 0x8: return .close(payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : 1005)
        case let op: return .other(op)
        }
    }

    /// The next text message parsed as a JSON object, skipping pings.
    func receiveJSON() -> [String: Any]? {
        while let frame = receive() {
            switch frame {
            case .text(let text): return try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
            case .close: return nil
            case .other: continue
            }
        }
        return nil
    }

    /// Whether the server ended the connection: a close frame with `code`, or a reset (libsoup
    /// resets when it closes with unread data still coming, as after an oversized frame).
    func closedByServer(code: UInt16) -> Bool {
        while let frame = receive() { if case .close(let got) = frame { return got == code } }
        return connection.peerEnded
    }

    /// Reads until the server's close frame; returns its code, or nil if none came.
    func receiveClose() -> UInt16? {
        while let frame = receive() { if case .close(let code) = frame { return code } }
        return nil
    }
}

extension Array where Element == UInt8 {
    func ends(with suffix: [UInt8]) -> Bool { count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix }
}
