import ConfCore

/// What an ACME certificate names (RFC 8555 section 7.1.4): an IP address (RFC 8738) or a DNS name.
public enum ACMEIdentifier: Hashable, Sendable, CustomStringConvertible {
    case ip(String)
    case dns(String)

    var json: JSONValue {
        switch self {
        case .ip(let address): .object(["type": .string("ip"), "value": .string(address)])
        case .dns(let name): .object(["type": .string("dns"), "value": .string(name)])
        }
    }

    public var description: String {
        switch self {
        case .ip(let address), .dns(let address): address
        }
    }
}

/// A request for the adapter to make. `body` is a JWS (`application/jose+json`) for a POST.
public struct ACMERequest: Equatable, Sendable {
    public enum Method: String, Sendable { case get = "GET", head = "HEAD", post = "POST" }
    public var method: Method
    public var url: String
    public var body: [UInt8]?

    /// The `Content-Type` of a POST (RFC 8555 section 6.2).
    public static let contentType = "application/jose+json"
}

/// What came back. Header names are matched without regard to case.
public struct ACMEResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// `Retry-After` (RFC 9110 section 10.2.3) as seconds from now: delta-seconds or an HTTP date
    /// (`unixTime`: the wall clock now, in seconds). Nil when absent or unreadable.
    public func retryAfter(unixTime: Int64) -> Int64? {
        guard let value = header("Retry-After")?.trimmed, !value.isEmpty else { return nil }
        if value.allSatisfy({ $0.isASCII && $0.isNumber }) { return value.count <= 9 ? Int64(value) : nil }
        return HTTPDate.unixTime(of: value).map { max(0, $0 - unixTime) }
    }
}

/// An ACME error document (RFC 8555 section 6.7, RFC 7807): its type and the server's words.
public struct ACMEProblem: Equatable, Sendable {
    public var type: String
    public var detail: String

    /// `type` without the ACME prefix: "badNonce", "rateLimited", ...
    public var shortType: String {
        type.hasPrefix(Self.prefix) ? String(type.dropFirst(Self.prefix.count)) : type
    }

    static let prefix = "urn:ietf:params:acme:error:"

    /// From an error answer's body; the detail cut to a length a message can carry (it is the
    /// CA's text: it reaches a terminal only through `TerminalText`).
    init(json: JSONValue?) {
        type = String((json?["type"]?.stringValue ?? "unknown").prefix(120))
        detail = String((json?["detail"]?.stringValue ?? "").prefix(300))
    }

    init(type: String, detail: String) {
        self.type = type
        self.detail = detail
    }
}

/// Why no certificate came: what a person reads, and what the caller needs to decide when to try
/// again (`retryAfter`, from the CA's answer).
public struct ACMEFailure: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: Sendable {
        /// The CA answered something that is not ACME (bad JSON, a missing URL, an oversized body).
        case malformedAnswer
        /// The CA refused (an error document), rate limits included.
        case refused
        /// The CA could not validate the challenge: the port was not reachable from outside, or
        /// what it read there was wrong.
        case validationFailed
        /// It took longer than the issuance may.
        case timedOut
        /// The adapter could not reach the CA at all.
        case unreachable
    }

    public var kind: Kind
    public var message: String
    public var problem: ACMEProblem?
    /// Seconds the CA asked to wait before another try (`Retry-After`), when it said.
    public var retryAfter: Int64?

    public var description: String { message }

    public init(kind: Kind, message: String, problem: ACMEProblem? = nil, retryAfter: Int64? = nil) {
        self.kind = kind
        self.message = message
        self.problem = problem
        self.retryAfter = retryAfter
    }
}

/// A challenge the adapter must answer before the CA looks (RFC 8555 section 8).
public struct ACMEChallenge: Equatable, Sendable {
    public enum Kind: String, Sendable, CaseIterable {
        /// A TLS handshake with ALPN `acme-tls/1` on port 443 shows a certificate made for it (RFC 8737).
        case tlsALPN01 = "tls-alpn-01"
        /// `http://IDENTIFIER/.well-known/acme-challenge/TOKEN` on port 80 answers the key authorization.
        case http01 = "http-01"
    }

    public var kind: Kind
    public var identifier: ACMEIdentifier
    public var token: String
    /// `token.thumbprint` (RFC 8555 section 8.1): what http-01 serves; its SHA-256 goes into the
    /// tls-alpn-01 certificate.
    public var keyAuthorization: String

    public init(kind: Kind, identifier: ACMEIdentifier, token: String, keyAuthorization: String) {
        self.kind = kind
        self.identifier = identifier
        self.token = token
        self.keyAuthorization = keyAuthorization
    }

    /// The http-01 path.
    public var path: String { "/.well-known/acme-challenge/" + token }
}

/// The account's key, which signs every request: ES256 (ECDSA P-256 with SHA-256).
public protocol ACMEAccountKey: Sendable {
    /// The public key as a JWK with its members in RFC 7638's order (`crv`, `kty`, `x`, `y`), so
    /// that it is also the input of the thumbprint.
    var jwk: String { get }
    /// Base64url of SHA-256 over `jwk` (RFC 7638).
    var thumbprint: String { get }
    /// The JWS signature of `input`: r and s, 32 bytes each (RFC 7518 section 3.4).
    func sign(_ input: [UInt8]) throws -> [UInt8]
}

/// Dates as HTTP writes them: IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT"), the only form a
/// sender may produce (RFC 9110 section 5.6.7).
enum HTTPDate {
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func unixTime(of text: String) -> Int64? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[5] == "GMT", let day = Int(parts[1]), (1...31).contains(day),
              let month = months.firstIndex(of: String(parts[2])), let year = Int(parts[3]), (1970...9999).contains(year) else { return nil }
        let time = parts[4].split(separator: ":").compactMap { Int($0) }
        guard time.count == 3, (0...23).contains(time[0]), (0...59).contains(time[1]), (0...60).contains(time[2]) else { return nil }
        return WallTime.days(fromCivil: Int64(year), month: Int64(month + 1), day: Int64(day)) * 86_400 + Int64(time[0] * 3600 + time[1] * 60 + time[2])
    }
}
