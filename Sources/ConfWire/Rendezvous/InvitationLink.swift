/// The one link `conf host` hands out, for browsers and conf alike:
/// `https://HOST:PORT/#room=ID&pin=PIN&fp=FINGERPRINT`.
///
/// Everything secret is in the fragment, which a browser never sends: the page reads the room
/// and pin from it and then takes them out of the address bar. `conf join LINK` reads the same
/// link and, with `fp`, trusts only the certificate it names (`--fingerprint`). `fp` is left out
/// where the certificate is one browsers trust. `http://` is plain ws:// (a loopback address, or
/// a rendezvous behind a TLS proxy that rewrote it).
///
/// `text` rather than `description`: a link holds a pin, and is printed only where meant to be.
public struct InvitationLink: Equatable, Sendable {
    public var server: RendezvousAddress
    public var room: RoomID
    public var pin: Pin
    public var fingerprint: ServerFingerprint?

    public init(server: RendezvousAddress, room: RoomID, pin: Pin, fingerprint: ServerFingerprint?) {
        (self.server, self.room, self.pin, self.fingerprint) = (server, room, pin, fingerprint)
    }

    /// Longer than any link conf makes (a 39-character IPv6 address, a port, the three members)
    /// by far; what a page adds (`name=`, `join=1`) fits too.
    static let longest = 512

    /// HTTPS's own port (443) is left out, as a browser shows it.
    public var text: String {
        let endpoint = server.endpoint
        let host = server.secure && endpoint.port == 443 ? (endpoint.host.contains(":") ? "[\(endpoint.host)]" : endpoint.host) : endpoint.description
        return (server.secure ? "https://" : "http://") + host + "/#room=\(room.rawValue)&pin=\(pin.digits)"
            + (fingerprint.map { "&fp=\($0.digits)" } ?? "")
    }

    /// Whether `text` is written as a link (a scheme browsers open), rather than a room id.
    public static func looksLikeLink(_ text: String) -> Bool {
        text.hasPrefix("https://") || text.hasPrefix("http://")
    }

    /// Reads a link as `text` writes it; members it does not know (a page's `name`, `join`) are
    /// ignored, a member given twice is refused.
    public static func parse(_ text: String) -> Result<InvitationLink, AddressProblem> {
        let copyAll = "copy the whole link, as conf host printed it"
        guard text.utf8.count <= longest else { return .failure(.init("the link is longer than any conf makes: \(copyAll)")) }
        guard looksLikeLink(text) else { return .failure(.init("a link starts with https://: \(copyAll)")) }
        guard let hash = text.firstIndex(of: "#") else { return .failure(.init("the link has no #room=...&pin=... at its end: \(copyAll)")) }
        let base = String(text[..<hash])
        let secure = base.hasPrefix("https://")
        var hostPort = base.dropFirst(secure ? 8 : 7)
        if hostPort.hasSuffix("/") { hostPort = hostPort.dropLast() }
        guard !hostPort.isEmpty, !hostPort.contains("/"), !hostPort.contains("?"), !hostPort.contains("@") else {
            return .failure(.init("the link's address '\(base)' is not a conf rendezvous's (a host and port, no path): \(copyAll)"))
        }
        let endpoint: HostPort
        switch HostPort.parse(String(hostPort), defaultHost: "", defaultPort: secure ? 443 : 80) {
        case .success(let parsed) where !parsed.host.isEmpty: endpoint = parsed
        case .success: return .failure(.init("the link names no host: \(copyAll)"))
        case .failure(let problem): return .failure(.init("the link's address: \(problem)"))
        }
        var members: [String: String] = [:]
        for member in text[text.index(after: hash)...].split(separator: "&") {
            let pair = member.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = String(pair[0]), value = pair.count == 2 ? String(pair[1]) : ""
            guard members.updateValue(value, forKey: key) == nil else { return .failure(.init("the link gives '\(key)' twice: \(copyAll)")) }
        }
        guard let roomText = members["room"], let room = RoomID(roomText) else {
            return .failure(.init("the link has no room id (room=, eight digits): \(copyAll)"))
        }
        guard let pinText = members["pin"], let pin = Pin(pinText) else {
            return .failure(.init("the link has no pin (pin=, six digits): \(copyAll)"))
        }
        var fingerprint: ServerFingerprint?
        if let fp = members["fp"] {
            guard let parsed = ServerFingerprint(fp) else { return .failure(.init("the link's fp= is not a certificate fingerprint: \(copyAll)")) }
            guard secure else { return .failure(.init("the link names a certificate (fp=) but is http://: \(copyAll)")) }
            fingerprint = parsed
        }
        return .success(InvitationLink(server: RendezvousAddress(endpoint: endpoint, secure: secure), room: room, pin: pin, fingerprint: fingerprint))
    }
}
