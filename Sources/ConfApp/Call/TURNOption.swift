import ConfDriver
import ConfWire

/// A `--turn` value, for `conf host`/`join` and `conf rendezvous` alike:
/// `USER:PASS@HOST:PORT`, with `?transport=tcp` to reach the server over TCP or `?transport=tls`
/// over TLS.
struct TURNOption {
    enum Transport { case udp, tcp, tls }

    static let form = "give USER:PASS@HOST:PORT, with ?transport=tcp or ?transport=tls to reach it over TCP or TLS"

    var username: String
    var password: String
    var endpoint: HostPort
    var transport: Transport

    /// Nil when `text` is not of that form.
    init?(_ text: String) {
        transport = text.hasSuffix("?transport=tcp") ? .tcp : text.hasSuffix("?transport=tls") ? .tls : .udp
        let text = transport == .udp ? Substring(text) : text.dropLast("?transport=tcp".count)
        guard let at = text.lastIndex(of: "@"), let colon = text[..<at].firstIndex(of: ":"),
              case .success(let endpoint) = HostPort.parse(String(text[text.index(after: at)...]), defaultHost: "") else { return nil }
        username = String(text[..<colon])
        password = String(text[text.index(after: colon)..<at])
        self.endpoint = endpoint
    }
}
