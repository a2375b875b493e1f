import ConfCore

/// Which certificate a rendezvous serves, as the `room` event and `conf rendezvous`'s first lines
/// say it: `{"kind": "acme"|"self-signed"|"file", "expires": ..., "reason": ...}`.
public struct ServedCertificate: Equatable, Sendable {
    public enum Kind: String, Sendable {
        /// From an ACME directory: browsers trust it.
        case acme
        /// Its own, trusted by fingerprint only.
        case selfSigned = "self-signed"
        /// One the operator gave (`--certificate FILE`, `--tls-cert`).
        case file
    }

    public var kind: Kind
    /// When it expires, seconds since 1970 (nil for the self-signed one, which does not).
    public var expires: Int64?
    /// Why it is not the one asked for (an ACME order that failed), in a person's words.
    public var reason: String?

    public init(kind: Kind, expires: Int64? = nil, reason: String? = nil) {
        self.kind = kind
        self.expires = expires
        self.reason = reason
    }

    public var json: JSONValue {
        .object(["kind": .string(kind.rawValue),
                 "expires": expires.map { .string(WallTime(nanosecondsSince1970: $0 * 1_000_000_000).iso8601) },
                 "reason": reason.map { .string($0) }])
    }

    /// One line for a person: "certificate: acme, expires 2026-12-14T10:00:00.000Z".
    public var words: String {
        var line = "certificate: \(kind.rawValue)"
        if let expires { line += ", expires \(WallTime(nanosecondsSince1970: expires * 1_000_000_000).iso8601)" }
        if let reason { line += " (\(reason))" }
        return line
    }
}
