/// A `--turn` value, for `conf host`/`join` and `conf rendezvous` alike:
/// `USER:PASS@HOST:PORT`, with `?transport=tcp` to reach the server over TCP or `?transport=tls`
/// over TLS (`?transport=udp`, RFC 7065, is the default). A user name is required; the password may be empty; without a port, TURN's own
/// (3478, or 5349 over TLS).
public struct TURNOption: Equatable, Sendable {
    public enum Transport: Sendable { case udp, tcp, tls }

    public static let form = "give USER:PASS@HOST:PORT, with ?transport=tcp or ?transport=tls to reach it over TCP or TLS"

    public var username: String
    public var password: String
    public var endpoint: HostPort
    public var transport: Transport

    /// Nil when `text` is not of that form.
    public init?(_ text: String) {
        let suffixes: [(String, Transport)] = [("?transport=tcp", .tcp), ("?transport=tls", .tls), ("?transport=udp", .udp)]
        let given = suffixes.first { text.hasSuffix($0.0) }
        transport = given?.1 ?? .udp
        let text = text.dropLast(given?.0.count ?? 0)
        guard let at = text.lastIndex(of: "@"), let colon = text[..<at].firstIndex(of: ":"),
              colon > text.startIndex else { return nil }
        let server = text[text.index(after: at)...]
        guard let endpoint = HostPort.server(String(server), defaultPort: transport == .tls ? HostPort.turnsPort : HostPort.stunPort) else { return nil }
        username = String(text[..<colon])
        password = String(text[text.index(after: colon)..<at])
        self.endpoint = endpoint
    }
}
