/// The proxy a participant reaches the rendezvous through, read from the environment as curl
/// reads it: `http_proxy` for ws:// and http://, `https_proxy` (or `HTTPS_PROXY`) for
/// wss:// and https://, `all_proxy` (or `ALL_PROXY`) for either, `no_proxy` (or `NO_PROXY`)
/// for the hosts reached directly. The lower-case name wins; `HTTP_PROXY` is not read (a CGI
/// program's `Proxy:` request header arrives in it).
///
/// conf reads these itself instead of leaving the choice to GIO's default resolver, which loads
/// three modules, libproxy and the desktop's proxy settings (GSettings, dconf) and asks them on
/// a thread of its own before the first connection: a few milliseconds of the time to `joined`
/// (git show 20307e8:BENCHMARKS.md, "The rendezvous without GIO's proxy modules").
public struct RendezvousProxy: Equatable, Sendable {
    /// The proxy's URL, with a scheme GIO knows (http://, socks5://...): "proxy:3128" is taken
    /// as http://proxy:3128, as curl takes it, and curl's socks5h:// (the proxy resolves names)
    /// as socks5://, which is what GIO's SOCKS5 does anyway.
    public var url: String
    /// Hosts, domains and address ranges reached directly, in `no_proxy`'s form (GLib's
    /// GSimpleProxyResolver reads the same: "example.com" also covers its subdomains). Loopback
    /// is always among them: no proxy can reach this machine's own rendezvous (`conf host`).
    public var directHosts: [String]

    static let loopback = ["localhost", "127.0.0.0/8", "::1"]

    /// The proxy for a rendezvous reached over TLS (`secure`) or not; nil when none is set or
    /// `no_proxy` is "*" (a "*" among other entries matches nothing, as in curl).
    public static func from(environment: [String: String], secure: Bool) -> RendezvousProxy? {
        func value(_ names: String...) -> String? {
            names.lazy.compactMap { environment[$0]?.trimmed }.first { !$0.isEmpty }
        }
        let chosen = secure ? value("https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY")
                            : value("http_proxy", "all_proxy", "ALL_PROXY")
        guard let chosen else { return nil }
        let noProxy = value("no_proxy", "NO_PROXY") ?? ""
        if noProxy == "*" { return nil }
        let direct = noProxy.split(separator: ",").compactMap { entry -> String? in
            let host = entry.trimmed
            return host.isEmpty || host == "*" ? nil : host
        }
        var url = chosen.contains("://") ? chosen : "http://" + chosen
        if url.lowercased().hasPrefix("socks5h://") { url = "socks5://" + url.dropFirst("socks5h://".count) }
        return RendezvousProxy(url: url, directHosts: Self.loopback + direct.filter { !Self.loopback.contains($0) })
    }
}

extension StringProtocol {
    /// Without the spaces and tabs around it (an HTTP header value's optional whitespace).
    var trimmed: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
