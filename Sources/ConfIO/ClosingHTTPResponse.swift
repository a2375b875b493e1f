import ConfCore

/// The answers the rendezvous writes on a connection itself, before or instead of libsoup: an
/// HTTP/1.1 status with a JSON body, after which the connection closes.
enum ClosingHTTPResponse {
    /// `status` is the code and reason ("429 Too Many Requests"); `headers` go before the body's.
    static func text(status: String, _ body: JSONValue, headers: [String] = [], connection: String = "close") -> String {
        let json = body.serialized
        let always = RendezvousServer.answerHeaders.map { "\($0.0): \($0.1)" }
        return "HTTP/1.1 \(status)\r\nContent-Type: application/json\r\n" + (always + headers).map { $0 + "\r\n" }.joined()
            + "Content-Length: \(json.utf8.count)\r\nConnection: \(connection)\r\n\r\n" + json
    }
}
