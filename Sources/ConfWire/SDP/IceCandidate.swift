/// An ICE candidate as written in SDP (RFC 8839 section 5.1):
/// `candidate:FOUNDATION COMPONENT TRANSPORT PRIORITY ADDRESS PORT typ TYPE [raddr A rport P] [ext val]...`
public struct IceCandidate: Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable, CaseIterable {
        case host, srflx, prflx, relay
    }

    public var foundation: String
    public var component: UInt16
    public var transport: String
    public var priority: UInt32
    /// An IP address, or an mDNS name ending in ".local".
    public var address: String
    public var port: UInt16
    public var kind: Kind
    public var relatedAddress: String?
    public var relatedPort: UInt16?
    /// Extension attributes we keep and repeat (tcptype, generation, ...), as name/value pairs.
    public var extensions: [String]

    public init(foundation: String, component: UInt16, transport: String, priority: UInt32, address: String, port: UInt16,
                kind: Kind, relatedAddress: String? = nil, relatedPort: UInt16? = nil, extensions: [String] = []) {
        self.foundation = foundation
        self.component = component
        self.transport = transport
        self.priority = priority
        self.address = address
        self.port = port
        self.kind = kind
        self.relatedAddress = relatedAddress
        self.relatedPort = relatedPort
        self.extensions = extensions
    }

    /// The attribute value, starting with "candidate:".
    public var description: String {
        var text = "candidate:\(foundation) \(component) \(transport) \(priority) \(address) \(port) typ \(kind.rawValue)"
        if let relatedAddress, let relatedPort { text += " raddr \(relatedAddress) rport \(relatedPort)" }
        if !extensions.isEmpty { text += " " + extensions.joined(separator: " ") }
        return text
    }

    /// Parses "candidate:..." (the "a=" may be present or not). A failure names what is wrong.
    public static func parse(_ text: String) -> Result<IceCandidate, SDPError> {
        var body = Substring(text)
        if body.hasPrefix("a=") { body = body.dropFirst(2) }
        guard body.hasPrefix("candidate:") else { return .failure(.invalidCandidate("does not start with candidate:")) }
        guard body.utf8.count <= 1024 else { return .failure(.invalidCandidate("longer than 1024 bytes")) }
        let fields = body.dropFirst("candidate:".count).split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard fields.count >= 8 else { return .failure(.invalidCandidate("fewer than 8 fields")) }
        guard isToken(fields[0], maxLength: 32) else { return .failure(.invalidCandidate("bad foundation")) }
        guard let component = UInt16(fields[1]), (1...256).contains(component) else {
            return .failure(.invalidCandidate("component must be 1 to 256"))
        }
        let transport = fields[2].lowercased()
        guard transport == "udp" || transport == "tcp" else { return .failure(.invalidCandidate("transport must be udp or tcp")) }
        guard let priority = UInt32(fields[3]) else { return .failure(.invalidCandidate("priority must fit 32 bits")) }
        guard isAddress(fields[4]) else { return .failure(.invalidCandidate("'\(fields[4].prefix(64))' is not an address")) }
        guard let port = UInt16(fields[5]) else { return .failure(.invalidCandidate("port must be 0 to 65535")) }
        guard fields[6] == "typ", let kind = Kind(rawValue: fields[7]) else {
            return .failure(.invalidCandidate("expected 'typ host|srflx|prflx|relay'"))
        }
        var candidate = IceCandidate(foundation: fields[0], component: component, transport: transport, priority: priority,
                                     address: fields[4], port: port, kind: kind)
        var index = 8
        while index + 1 < fields.count {
            let (name, value) = (fields[index], fields[index + 1])
            switch name {
            case "raddr":
                guard isAddress(value) else { return .failure(.invalidCandidate("bad raddr")) }
                candidate.relatedAddress = value
            case "rport":
                guard let p = UInt16(value) else { return .failure(.invalidCandidate("bad rport")) }
                candidate.relatedPort = p
            default:
                guard isToken(name, maxLength: 64), isToken(value, maxLength: 256) else {
                    return .failure(.invalidCandidate("bad extension"))
                }
                candidate.extensions.append("\(name) \(value)")
            }
            index += 2
        }
        guard index == fields.count else { return .failure(.invalidCandidate("an extension without a value")) }
        return .success(candidate)
    }

    static func isToken(_ text: String, maxLength: Int) -> Bool {
        !text.isEmpty && text.utf8.count <= maxLength && text.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
    }

    /// An IPv4 or IPv6 literal, or a host name (mDNS candidates use "<uuid>.local").
    static func isAddress(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 255
            && text.utf8.allSatisfy { c in
                (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z"))
                    || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z")) || c == UInt8(ascii: ".") || c == UInt8(ascii: ":")
                    || c == UInt8(ascii: "-") || c == UInt8(ascii: "%")
            }
    }
}
