/// A room's id as users read it aloud: eight digits in two groups, "4821-7734".
public struct RoomID: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    /// Accepts "48217734", "4821-7734" and "4821 7734"; stores the canonical dashed form.
    public init?(_ text: String) {
        let digits = text.filter { $0 != "-" && $0 != " " }
        guard digits.count == 8, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
            text.count <= 10
        else { return nil }
        rawValue = String(digits.prefix(4)) + "-" + String(digits.suffix(4))
    }

    public var description: String { rawValue }
}

/// A pin: exactly six ASCII digits. Its `description` hides it, so a pin never lands in a log by accident.
public struct Pin: Hashable, Sendable, CustomStringConvertible {
    public let digits: String

    public init?(_ text: String) {
        guard text.utf8.count == 6, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        digits = text
    }

    public var description: String { "******" }
}

/// A participant's id within a room ("p1", "p2", ...), assigned by the rendezvous and never reused
/// in the same room.
public struct ParticipantID: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(_ rawValue: String) { self.rawValue = rawValue }
    /// Nil unless `text` has the form the rendezvous assigns: "p" and a number of at most 9 digits.
    public init?(validating text: String) {
        guard Self.isNumbered(text, prefix: "p") else { return nil }
        rawValue = text
    }
    public var description: String { rawValue }
    /// The number after the "p", when the id has the assigned form.
    public var number: Int? { Self.isNumbered(rawValue, prefix: "p") ? Int(rawValue.dropFirst()) : nil }

    static func isNumbered(_ text: String, prefix: Character) -> Bool {
        let digits = text.utf8.dropFirst()
        return text.first == prefix && (1...9).contains(digits.count)
            && digits.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") } && digits.first != UInt8(ascii: "0")
    }
}

/// The order participants joined in: the rendezvous numbers them p1, p2, ... as they come, so
/// p2 comes before p10 (compared as strings, p10 came first, and the roster's order broke after
/// nine joins). An id of another form (never one the rendezvous assigns) comes after the
/// numbered ones, in string order.
extension ParticipantID: Comparable {
    public static func < (a: ParticipantID, b: ParticipantID) -> Bool {
        switch (a.number, b.number) {
        case let (x?, y?): x < y
        case (.some, nil): true
        case (nil, .some): false
        case (nil, nil): a.rawValue < b.rawValue
        }
    }
}

/// One knock on a room that is locked (too many wrong pins): "k1", "k2", ... assigned by the
/// rendezvous; a publisher answers it with `admit` or `deny` (docs/SECURITY.md).
public struct KnockID: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init?(_ text: String) {
        guard ParticipantID.isNumbered(text, prefix: "k") else { return nil }
        rawValue = text
    }
    public var description: String { rawValue }
}

public enum Role: String, Sendable, CaseIterable {
    /// Joined with the room's pin: may send media.
    case publisher
    /// Joined with the listen-only pin: receives only.
    case listener
}

/// The send size every publisher in a room uses.
public enum Resolution: String, Sendable, CaseIterable {
    case p240 = "240p"
    case p360 = "360p"
    case p480 = "480p"
    case p720 = "720p"

    public static let `default` = Resolution.p480

    public var size: (width: Int, height: Int) {
        switch self {
        case .p240: (320, 240)
        case .p360: (640, 360)
        case .p480: (640, 480)
        case .p720: (1280, 720)
        }
    }
}

public struct Participant: Hashable, Sendable {
    public var id: ParticipantID
    public var name: String
    public var role: Role

    public init(id: ParticipantID, name: String, role: Role) {
        self.id = id
        self.name = name
        self.role = role
    }
}

/// A STUN or TURN server, in the shape of WebRTC's RTCIceServer.
public struct IceServer: Hashable, Sendable {
    public var urls: [String]
    public var username: String?
    public var credential: String?

    public init(urls: [String], username: String? = nil, credential: String? = nil) {
        self.urls = urls
        self.username = username
        self.credential = credential
    }
}
