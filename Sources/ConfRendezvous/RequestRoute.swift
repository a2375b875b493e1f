import ConfWire

/// Which room a new connection is for, read from the start of its HTTP request before anyone
/// answers it (`GET /v1/ws?room=4821-7734 HTTP/1.1`; `ws://host:port` may come before the path): how a rendezvous with several workers hands
/// each WebSocket to the worker that holds its room. Pure; the bytes are hostile.
public enum RequestRoute: Equatable, Sendable {
    /// The request line is not complete yet.
    case incomplete
    /// Not a WebSocket for a named room (room creation, health, an old client, garbage): served
    /// where it arrived, and refused there if it is garbage.
    case anywhere
    /// A WebSocket (`GET /v1/ws`) whose request line names no valid room: served where it
    /// arrived, as a WebSocket.
    case webSocket
    case room(RoomID)

    /// Longer than this without a complete request line and it is served where it arrived
    /// (libsoup then refuses it).
    public static let longestRequestLine = 2_048

    public static func of(_ head: some Collection<UInt8>) -> RequestRoute {
        guard let end = head.firstIndex(of: UInt8(ascii: "\n")) else {
            return head.count >= longestRequestLine ? .anywhere : .incomplete
        }
        let line = String(decoding: head[..<end], as: UTF8.self)
        let parts = line.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count >= 2, parts[0] == "GET" else { return .anywhere }
        var target = parts[1]
        // The absolute form ("ws://host:port/v1/ws?room=..."), which a server must accept (RFC 9112
        // 3.2.2) and some proxies pass on as they got it: its path starts after the authority.
        if !target.hasPrefix("/"), let scheme = target.firstRange(of: "://") {
            let authority = target[scheme.upperBound...]
            // The authority ends at the first "/", "?" or "#" (RFC 3986 3.2); a path only after "/".
            let end = authority.firstIndex { "/?#".contains($0) } ?? authority.endIndex
            target = authority[end...]
        }
        let question = target.firstIndex(of: "?") ?? target.endIndex
        guard target[..<question] == "/v1/ws" else { return .anywhere }
        let query = question == target.endIndex ? target[question...] : target[target.index(after: question)...]
        for pair in query.split(separator: "&") where pair.hasPrefix("room=") {
            return RoomID(String(pair.dropFirst(5))).map { .room($0) } ?? .webSocket
        }
        return .webSocket
    }
}
