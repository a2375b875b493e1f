import ConfCore

/// Base64 with the URL-safe alphabet and no padding (RFC 4648 section 5): resume tokens are
/// printable ASCII without characters JSON or a shell would need to escape.
enum Base64URL {
    static func encode(_ bytes: [UInt8]) -> String { Base64.encode(bytes, urlSafe: true) }

    /// Nil for any character outside the alphabet or an impossible length.
    static func decode(_ text: String) -> [UInt8]? { Base64.decodeURLSafe(text) }
}
