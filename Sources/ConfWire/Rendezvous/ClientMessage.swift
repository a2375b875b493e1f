import ConfCore

/// What a participant sends the rendezvous over its WebSocket (docs/PROTOCOL.md, "Client messages").
public enum ClientMessage: Equatable, Sendable {
    case join(room: RoomID, pin: Pin, name: String)
    /// An opaque payload for one other participant of the same room.
    case signal(to: ParticipantID, payload: JSONValue)
    case leave
    /// The client is going and may be back at once (a page closed or reloaded): the seat waits
    /// only `RendezvousConfig.briefAwayGrace` for a `resume`, then the others are told.
    case away
    case ping
    /// Take back one's seat after the connection to the rendezvous was lost, with the token from `joined`.
    case resume(token: String)
    /// A publisher's answer to a `knock` on its locked room.
    case admit(KnockID)
    case deny(KnockID)

    public var json: JSONValue {
        switch self {
        case .join(let room, let pin, let name):
            .object(["type": "join", "room": .string(room.rawValue), "pin": .string(pin.digits), "name": .string(name)])
        case .signal(let to, let payload):
            .object(["type": "signal", "to": .string(to.rawValue), "payload": payload])
        case .leave: .object(["type": "leave"])
        case .away: .object(["type": "away"])
        case .ping: .object(["type": "ping"])
        case .resume(let token): .object(["type": "resume", "token": .string(token)])
        case .admit(let knock): .object(["type": "admit", "knock": .string(knock.rawValue)])
        case .deny(let knock): .object(["type": "deny", "knock": .string(knock.rawValue)])
        }
    }

    public init(text: String) throws(ProtocolError) {
        try self.init(json: JSONValue.parseMessage(text), parsedFrom: text.utf8.count)
    }

    public init(json: JSONValue) throws(ProtocolError) { try self.init(json: json, parsedFrom: nil) }

    /// Written out again, a value takes at most this many times the bytes of the text it was
    /// parsed from: a raw DEL (legal in a JSON string) becomes the 6-byte `\u007f`; nothing grows
    /// more (a number like 9e15 becomes 16 digits, 4 times; a raw C1 or format character 2 or 3).
    public static let serializedGrowth = 6

    /// `textBytes`: the length of the text `json` was parsed from, when it was.
    private init(json: JSONValue, parsedFrom textBytes: Int?) throws(ProtocolError) {
        let fields = try FieldReader(json)
        switch try fields.string("type") {
        case "join":
            let name = try fields.string("name")
            if let problem = Names.problem(withParticipantName: name) { throw .invalidValue(field: "name", reason: problem) }
            self = .join(room: try fields.roomID("room"), pin: try fields.pin("pin"), name: name)
        case "signal":
            let payload = try fields.value("payload")
            // Serialized only to be measured when its text could be too long: relaying
            // serializes it again, and this was a fifth of the rendezvous's work per signal.
            let surelyFits = textBytes.map { $0 * Self.serializedGrowth <= ProtocolLimits.maxSignalPayloadBytes } ?? false
            guard surelyFits || payload.serialized.utf8.count <= ProtocolLimits.maxSignalPayloadBytes else {
                throw .tooLarge(what: "the signal payload", limit: ProtocolLimits.maxSignalPayloadBytes)
            }
            self = .signal(to: try fields.participantID("to"), payload: payload)
        case "leave": self = .leave
        case "away": self = .away
        case "ping": self = .ping
        case "resume":
            let token = try fields.string("token")
            guard (1...ProtocolLimits.maxResumeTokenBytes).contains(token.utf8.count),
                token.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f })
            else {
                throw .invalidValue(field: "token", reason: "a resume token is 1 to \(ProtocolLimits.maxResumeTokenBytes) printable ASCII characters")
            }
            self = .resume(token: token)
        case "admit": self = .admit(try fields.knockID("knock"))
        case "deny": self = .deny(try fields.knockID("knock"))
        case let other: throw .unknownType(other)
        }
    }
}
