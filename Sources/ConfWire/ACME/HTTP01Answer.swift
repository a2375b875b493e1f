/// What the http-01 responder (RFC 8555 section 8.3) answers to the bytes a connection sent:
/// `GET /.well-known/acme-challenge/TOKEN` gets the key authorization as text/plain, anything
/// else 404; nothing else is ever served there (the listener is plain HTTP, where a pin must
/// never go). Pure; the request is read up to `limit` bytes.
public enum HTTP01Answer {
    public static let limit = 4_096

    public enum Reading: Equatable, Sendable {
        /// The request line and headers have not all come yet.
        case incomplete
        /// The whole answer to write, after which the connection is closed.
        case answer(String)
    }

    /// `challenges`: the key authorization of each token answered now.
    public static func read(_ bytes: [UInt8], challenges: [String: String]) -> Reading {
        guard let end = headerEnd(bytes) else {
            return bytes.count >= limit ? .answer(response(status: "431 Request Header Fields Too Large", body: "")) : .incomplete
        }
        let line = bytes[..<end].split(separator: 0x0D, maxSplits: 1, omittingEmptySubsequences: false).first ?? []
        let parts = line.split(separator: 0x20, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].elementsEqual("GET".utf8) || parts[0].elementsEqual("HEAD".utf8),
              parts[2].starts(with: "HTTP/1.".utf8) else {
            return .answer(response(status: "400 Bad Request", body: ""))
        }
        let path = String(decoding: parts[1], as: UTF8.self)
        let prefix = "/.well-known/acme-challenge/"
        guard path.hasPrefix(prefix), let keyAuthorization = challenges[String(path.dropFirst(prefix.count))] else {
            return .answer(response(status: "404 Not Found", body: ""))
        }
        return .answer(response(status: "200 OK", body: parts[0].elementsEqual("HEAD".utf8) ? "" : keyAuthorization, length: keyAuthorization.utf8.count))
    }

    static func headerEnd(_ bytes: [UInt8]) -> Int? {
        let window = bytes.prefix(limit)
        guard window.count >= 4 else { return nil }
        for index in 0...(window.count - 4) where window[index] == 0x0D && window[index + 1] == 0x0A && window[index + 2] == 0x0D && window[index + 3] == 0x0A {
            return index
        }
        return nil
    }

    static func response(status: String, body: String, length: Int? = nil) -> String {
        "HTTP/1.1 \(status)\r\nContent-Type: text/plain\r\nContent-Length: \(length ?? body.utf8.count)\r\n"
            + "X-Content-Type-Options: nosniff\r\nContent-Security-Policy: default-src 'none'\r\nConnection: close\r\n\r\n" + body
    }
}
