/// A client's opening handshake (RFC 6455 §4.2.1), parsed from the bytes of its HTTP/1.1 request head.
///
/// Pure; the bytes are hostile. A refusal's message never quotes them: it says what was wrong in
/// words of its own, so a log line or a response body carries nothing the client chose.
public struct WebSocketUpgrade: Equatable, Sendable {
    /// The request target's path ("/v1/ws"), without the query; the absolute form "ws://host:port/v1/ws?..." (RFC 9112 §3.2.2) gives its path too.
    public let path: String
    /// The query after "?" without the "?", or "" .
    public let query: String
    /// Sec-WebSocket-Key as sent (must be base64 of exactly 16 bytes: 24 characters ending "==").
    public let key: String
    /// The Host header's value as sent (hostile: checked where it is used).
    public let host: String
    /// The X-Forwarded-For header's value (several such headers joined with ", " in order), nil if absent.
    public let forwardedFor: String?

    /// Longest head accepted, "\r\n\r\n" included.
    public static let longestHead = 8_192

    public enum HeadLength: Equatable, Sendable { case incomplete, complete(Int), tooLong }

    /// Where the head ends in what has arrived so far: complete(n) when bytes[0..<n] ends with "\r\n\r\n"; tooLong when longestHead bytes have come without it.
    ///
    /// The head ends at its first empty line; like the parser, this takes a bare LF for a line's end
    /// (RFC 9112 §2.2), so "\n\n" and "\n\r\n" end it too.
    public static func headLength(of bytes: some Collection<UInt8>) -> HeadLength {
        // The scan itself on a buffer: called from another module this function is not
        // specialised, and byte-by-byte iteration through the Collection witness was a visible
        // share of the rendezvous's work per connection.
        if let length = bytes.withContiguousStorageIfAvailable({ headLength(ofBuffer: $0) }) { return length }
        return Array(bytes).withUnsafeBufferPointer { headLength(ofBuffer: $0) }
    }

    private static func headLength(ofBuffer bytes: UnsafeBufferPointer<UInt8>) -> HeadLength {
        var count = 0
        var atLineStart = false  // just after a LF: the request line cannot be the empty line
        var carriageReturnAtLineStart = false
        for byte in bytes.prefix(longestHead) {
            count += 1
            switch byte {
            case lineFeed:
                if atLineStart { return .complete(count) }
                atLineStart = true
                carriageReturnAtLineStart = false
            case carriageReturn where atLineStart && !carriageReturnAtLineStart:
                carriageReturnAtLineStart = true
            default:
                atLineStart = false
                carriageReturnAtLineStart = false
            }
        }
        return count >= longestHead ? .tooLong : .incomplete
    }

    /// Parses a complete head (exactly what headLength gave). Throws WebSocketUpgrade.Refusal.
    ///
    /// Bytes after the head's empty line are not read.
    public init(head: some Collection<UInt8>) throws(Refusal) {
        let lines = try Self.lines(of: Array(head))
        guard let requestLine = lines.first else { throw .malformedRequestLine }
        (path, query) = try Self.target(ofRequestLine: requestLine)

        var hosts = 0
        var host: Substring = ""
        var upgrade: [Substring] = [], connection: [Substring] = []
        var versions: [Substring] = [], keys: [Substring] = [], forwarded: [Substring] = []
        for line in lines.dropFirst() {
            let (name, value) = try Self.field(line)
            switch name.lowercased() {
            case "host":
                hosts += 1
                host = value
            case "upgrade": upgrade += Self.listElements(value)
            case "connection": connection += Self.listElements(value)
            case "sec-websocket-version": versions.append(value)
            case "sec-websocket-key": keys.append(value)
            case "x-forwarded-for": forwarded.append(value)
            default: break  // Origin, Sec-WebSocket-Protocol and the rest: not ours to check
            }
        }
        // RFC 9112 §3.2: a request without Host, or with more than one, gets 400.
        guard hosts > 0 else { throw .noHost }
        guard hosts == 1 else { throw .severalHosts }
        guard upgrade.contains(where: { $0.lowercased() == "websocket" }) else { throw .noUpgrade }
        guard connection.contains(where: { $0.lowercased() == "upgrade" }) else { throw .noConnectionUpgrade }
        // RFC 6455 §4.2.2: any other version gets 426 with the version this server speaks.
        guard versions == ["13"] else { throw .wrongVersion }
        guard keys.count == 1, let key = keys.first else { throw .keyCount }
        guard Self.isKey(key.utf8) else { throw .malformedKey }
        self.key = String(key)
        self.host = String(host)
        forwardedFor = forwarded.isEmpty ? nil : forwarded.joined(separator: ", ")
    }

    public struct Refusal: Error, Equatable, Sendable {
        /// 400 bad request, 405 method not allowed (not GET), 426 upgrade required (no/incorrect Upgrade/Connection, or Sec-WebSocket-Version not 13: then the response must carry "Sec-WebSocket-Version: 13"), 505 not HTTP/1.1
        public let status: Int
        /// The HTTP reason phrase ("Bad Request", ...)
        public let reason: String
        /// One sentence for a human saying what was wrong and what to do
        public let message: String
    }

    /// "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: <accept>\r\n\r\n" as bytes. The caller computes accept = base64(SHA-1(key + acceptGUID)) (it has SHA-1; this module does not).
    public static func response(accept: String) -> [UInt8] {
        Array("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: \(accept)\r\n\r\n".utf8)
    }

    public static let acceptGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
}

private let lineFeed = UInt8(ascii: "\n")
private let carriageReturn = UInt8(ascii: "\r")

extension WebSocketUpgrade {
    /// The head's lines up to its empty line, without their line endings. Every byte is checked
    /// before it is read as text: a line holds printable ASCII and tab only, and a CR may only
    /// come just before its LF (RFC 9112 §2.2 lets a server refuse a bare CR).
    private static func lines(of head: [UInt8]) throws(Refusal) -> [Substring] {
        var lines: [Substring] = []
        var start = 0
        for index in head.indices {
            let byte = head[index]
            if byte == lineFeed {
                let end = index > start && head[index - 1] == carriageReturn ? index - 1 : index
                if end == start { return lines }
                lines.append(Substring(decoding: head[start..<end], as: UTF8.self))
                start = index + 1
            } else if byte == carriageReturn {
                guard index + 1 < head.count, head[index + 1] == lineFeed else { throw .bareCarriageReturn }
            } else if byte != UInt8(ascii: "\t") && !(0x20...0x7E).contains(byte) {
                throw .notPrintable
            }
        }
        throw .incomplete
    }

    /// "GET <target> HTTP/1.1" (RFC 9112 §3): the target's path and query.
    private static func target(ofRequestLine line: Substring) throws(Refusal) -> (path: String, query: String) {
        let parts = line.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, isToken(parts[0]), !parts[1].isEmpty, isHTTPVersion(parts[2]) else { throw .malformedRequestLine }
        guard parts[2] == "HTTP/1.1" else { throw .notHTTP11 }
        guard parts[0] == "GET" else { throw .notGet }  // methods are case-sensitive (RFC 9110 §9.1)
        var target = parts[1]
        // A target has no fragment (RFC 9112 §3.2) and no spaces; the split took the spaces out already.
        guard target.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "#") }) else { throw .malformedTarget }
        if !target.hasPrefix("/") {
            // The absolute form (RFC 9112 §3.2.2): its path starts after the authority, which ends at
            // the first "/" or "?" (RFC 3986 §3.2); an empty path is "/".
            guard let separator = target.firstRange(of: "://"),
                  ["ws", "wss", "http", "https"].contains(target[..<separator.lowerBound].lowercased()) else { throw .malformedTarget }
            let authority = target[separator.upperBound...]
            let end = authority.firstIndex { $0 == "/" || $0 == "?" } ?? authority.endIndex
            guard end > authority.startIndex else { throw .malformedTarget }
            target = authority[end...]
        }
        let question = target.firstIndex(of: "?") ?? target.endIndex
        let path = target[..<question]
        let query = question == target.endIndex ? "" : target[target.index(after: question)...]
        return (path.isEmpty ? "/" : String(path), String(query))
    }

    /// "Name: value" (RFC 9112 §5): the name a token right up to the colon, the value trimmed.
    private static func field(_ line: Substring) throws(Refusal) -> (name: Substring, value: Substring) {
        guard let first = line.utf8.first, first != UInt8(ascii: " ") && first != UInt8(ascii: "\t") else { throw .foldedLine }
        guard let colon = line.firstIndex(of: ":") else { throw .noColon }
        let name = line[..<colon]
        // RFC 9112 §5.1: whitespace between the name and the colon gets 400.
        guard isToken(name) else { throw .malformedName }
        return (name, trimmed(line[line.index(after: colon)...]))
    }

    /// A comma-separated list's elements (RFC 9110 §5.6.1), trimmed, empty ones dropped.
    private static func listElements(_ value: Substring) -> [Substring] {
        value.split(separator: ",").map(trimmed).filter { !$0.isEmpty }
    }

    private static func trimmed(_ text: Substring) -> Substring {
        let isSpace = { (c: Character) in c == " " || c == "\t" }
        guard let start = text.firstIndex(where: { !isSpace($0) }), let last = text.lastIndex(where: { !isSpace($0) }) else { return "" }
        return text[start...last]
    }

    /// RFC 9110 §5.6.2: tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA
    private static func isToken(_ text: Substring) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { c in
            (0x30...0x39).contains(c) || (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c) || "!#$%&'*+-.^_`|~".utf8.contains(c)
        }
    }

    /// "HTTP/" DIGIT "." DIGIT (RFC 9112 §2.3): a version, if not one this server speaks.
    private static func isHTTPVersion(_ text: Substring) -> Bool {
        let bytes = Array(text.utf8)
        let isDigit = { (c: UInt8) in (0x30...0x39).contains(c) }
        return bytes.count == 8 && text.hasPrefix("HTTP/") && isDigit(bytes[5]) && bytes[6] == UInt8(ascii: ".") && isDigit(bytes[7])
    }

    /// 24 base64 characters (RFC 4648 §4) that decode to exactly 16 bytes: 22 carrying 132 bits,
    /// the last 4 of them zero in the canonical encoding (§3.5), then "==".
    private static func isKey(_ key: Substring.UTF8View) -> Bool {
        let bytes = Array(key)
        guard bytes.count == 24, bytes[22] == UInt8(ascii: "="), bytes[23] == UInt8(ascii: "=") else { return false }
        var last: UInt8 = 0
        for byte in bytes[..<22] {
            guard let value = base64Value(byte) else { return false }
            last = value
        }
        return last & 0x0F == 0
    }

    private static func base64Value(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): c - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): c - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
}

extension WebSocketUpgrade.Refusal {
    /// `headLength` said `.tooLong`.
    public static let headTooLong = Self(status: 431, reason: "Request Header Fields Too Large",
                                         message: "The request head is longer than \(WebSocketUpgrade.longestHead) bytes; send fewer or shorter headers.")
}

/// Every refusal: fixed sentences, nothing of the request in them.
fileprivate extension WebSocketUpgrade.Refusal {
    static func badRequest(_ message: String) -> Self { .init(status: 400, reason: "Bad Request", message: message) }
    static func upgradeRequired(_ message: String) -> Self { .init(status: 426, reason: "Upgrade Required", message: message) }

    static let notPrintable = badRequest("The request head has a byte that is not printable ASCII; send header text in ASCII only.")
    static let bareCarriageReturn = badRequest("The request head has a carriage return that does not end a line; end each line with CRLF.")
    static let incomplete = badRequest("The request head does not end with an empty line; end it with CRLF CRLF.")
    static let malformedRequestLine = badRequest("The request line is malformed; send \"GET <path> HTTP/1.1\".")
    static let malformedTarget = badRequest("The request target is neither a path nor a ws, wss, http or https URI; send a path such as /v1/ws.")
    static let notHTTP11 = Self(status: 505, reason: "HTTP Version Not Supported",
                                message: "Only HTTP/1.1 can upgrade to a WebSocket here; send the request as HTTP/1.1.")
    static let notGet = Self(status: 405, reason: "Method Not Allowed",
                             message: "Only GET opens a WebSocket (RFC 6455 section 4.1); send the request with GET.")
    static let foldedLine = badRequest("A header line starts with whitespace (obsolete line folding); send each header on one line.")
    static let noColon = badRequest("A header line has no colon; send each header as \"Name: value\".")
    static let malformedName = badRequest("A header name is empty or not a token; send \"Name: value\" with no space before the colon.")
    static let noHost = badRequest("The request has no Host header; send exactly one.")
    static let severalHosts = badRequest("The request has more than one Host header; send exactly one.")
    static let noUpgrade = upgradeRequired("The Upgrade header does not name websocket; send \"Upgrade: websocket\".")
    static let noConnectionUpgrade = upgradeRequired("The Connection header does not include upgrade; send \"Connection: Upgrade\".")
    static let wrongVersion = upgradeRequired("Only WebSocket version 13 is spoken here; send one \"Sec-WebSocket-Version: 13\" header.")
    static let keyCount = badRequest("The request does not have exactly one Sec-WebSocket-Key header; send exactly one.")
    static let malformedKey = badRequest("Sec-WebSocket-Key is not the base64 of 16 bytes; send 24 base64 characters ending in \"==\".")
}
