import ConfCore
import ConfWire

/// Who may make rooms on this rendezvous (`POST /v1/rooms`), judged from the request's headers
/// before its body is read and before any limit is counted. Pure; the headers are hostile.
///
/// - The body must be declared `application/json`. A page on another site can send a
///   `text/plain` POST without asking (a "simple" request), but not a JSON one: the browser
///   first asks with a preflight, which this rendezvous never grants (it sends no CORS headers).
/// - A request that carries an `Origin` other than the rendezvous's own comes from a web page
///   on another site: refused. conf sends no Origin; the call page never makes rooms.
/// - With a key (`conf rendezvous --room-key-file`, or the one a `conf host` draws for its own
///   rendezvous), the request must carry it: `Authorization: Bearer KEY`.
public struct RoomCreationPolicy: Sendable {
    /// Whose key it is, for the words of a refusal.
    public enum KeyHolder: Sendable, Equatable {
        /// The rendezvous inside `conf host`: its host alone makes the one room.
        case host
        /// A standing rendezvous whose operator hands the key to its users.
        case operatorOnly
    }

    public var key: RoomKey?
    public var holder: KeyHolder

    /// Anyone who reaches the rendezvous may make rooms (within the limits per address).
    public static let open = RoomCreationPolicy(key: nil, holder: .operatorOnly)

    public init(key: RoomKey?, holder: KeyHolder) {
        self.key = key
        self.holder = holder
    }

    /// What a request says of itself, as the I/O layer read it (nil: no such header).
    public struct Request: Sendable {
        public var contentType: String?
        public var origin: String?
        public var host: String?
        public var authorization: String?

        public init(contentType: String? = nil, origin: String? = nil, host: String? = nil, authorization: String? = nil) {
            (self.contentType, self.origin, self.host, self.authorization) = (contentType, origin, host, authorization)
        }
    }

    /// Why the request may not make a room, or nil when it may.
    public func refusal(of request: Request) -> RendezvousCore.CreateRoomFailure? {
        if let origin = request.origin, !Self.isSameOrigin(origin, host: request.host) {
            return .forbidden("rooms are made by conf (conf host), not by web pages: this request came from \(Self.clean(origin))")
        }
        guard let type = request.contentType, Self.isJSON(type) else {
            return .unsupportedMediaType("send the room as JSON with Content-Type: application/json")
        }
        guard let key else { return nil }
        let presented = request.authorization.flatMap(Self.bearer)
        guard let presented, key.matches(presented) else {
            switch holder {
            case .host:
                return .forbidden("this rendezvous belongs to a conf host and makes no room but its host's: start your own with conf host")
            case .operatorOnly:
                return .forbidden(presented == nil
                                  ? "this rendezvous makes rooms only for holders of its room key: put room-key = KEY in your conf config (ask its operator for the key)"
                                  : "wrong room key: check room-key in your conf config with the rendezvous's operator")
            }
        }
        return nil
    }

    /// `application/json`, with or without parameters (`; charset=utf-8`), in any case.
    static func isJSON(_ contentType: String) -> Bool {
        let media = contentType.split(separator: ";", maxSplits: 1).first ?? ""
        return media.trimmingSpaces.lowercased() == "application/json"
    }

    /// The Origin names the host the request was sent to (the call page's own origin): then it is
    /// the rendezvous's own page, not another site's.
    static func isSameOrigin(_ origin: String, host: String?) -> Bool {
        guard let host, !host.isEmpty else { return false }
        return origin == "https://" + host || origin == "http://" + host
    }

    /// The key of `Authorization: Bearer KEY`, or nil.
    static func bearer(_ header: String) -> String? {
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return String(parts[1]).trimmingSpaces
    }

    /// A header quoted back: printable ASCII, at most 100 characters.
    static func clean(_ text: String) -> String {
        String(text.unicodeScalars.prefix(100).map { (0x20..<0x7F).contains($0.value) ? Character($0) : "?" })
    }
}

/// A secret that lets its holder make rooms on a rendezvous: printable ASCII without spaces,
/// 16 to 256 characters. Compared in constant time.
public struct RoomKey: Sendable, Equatable {
    public let text: String

    public init?(_ text: String) {
        guard (16...256).contains(text.utf8.count), text.utf8.allSatisfy({ (0x21..<0x7F).contains($0) }) else { return nil }
        self.text = text
    }

    /// A new key of 32 characters (24 random bytes, base64url).
    public static func random(using random: inout some RandomNumberGenerator) -> RoomKey {
        RoomKey(Base64URL.encode((0..<24).map { _ in UInt8.random(in: 0...255, using: &random) }))!
    }

    public static let problem = "a room key is 16 to 256 printable characters without spaces"

    func matches(_ presented: String) -> Bool {
        let a = Array(text.utf8), b = Array(presented.utf8)
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for index in 0..<a.count { difference |= a[index] ^ (index < b.count ? b[index] : 0) }
        return difference == 0
    }
}

extension StringProtocol {
    var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
