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

    /// Seconds since 1970 as a `WallTime`, held within what its nanoseconds can count (to 2262):
    /// a certificate may say 9999.
    public static func wallTime(_ seconds: Int64) -> WallTime {
        WallTime(nanosecondsSince1970: max(0, min(seconds, Int64.max / 1_000_000_000)) * 1_000_000_000)
    }

    public var json: JSONValue {
        .object(["kind": .string(kind.rawValue),
                 "expires": expires.map { .string(Self.wallTime($0).iso8601) },
                 "reason": reason.map { .string($0) }])
    }

    /// One line for a person: "certificate: acme, expires 2026-12-14T10:00:00.000Z".
    public var words: String {
        var line = "certificate: \(kind.rawValue)"
        if let expires { line += ", expires \(Self.wallTime(expires).iso8601)" }
        if let reason { line += " (\(reason))" }
        return line
    }
}
