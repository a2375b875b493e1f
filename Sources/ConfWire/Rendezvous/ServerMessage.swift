import ConfCore

/// What the rendezvous sends a participant (docs/PROTOCOL.md, "Server messages").
public enum ServerMessage: Equatable, Sendable {
    case joined(Joined)
    case peerJoined(Participant)
    case peerLeft(ParticipantID)
    case signal(from: ParticipantID, payload: JSONValue)
    case error(code: ErrorCode, message: String)
    case pong
    /// The room ended for everyone (its embedded rendezvous is shutting down with its host).
    case roomClosed(reason: String)
    /// To one who joined a locked room: the join waits for a publisher to admit it (docs/SECURITY.md).
    case knocking(message: String)
    /// To the publishers of a locked room: someone with the right pin asks to come in.
    case knock(Knock)
    /// To the publishers: a knock was answered (by anyone), withdrawn, or timed out.
    case knockEnded(KnockID, outcome: KnockOutcome)

    public struct Knock: Equatable, Sendable {
        public var id: KnockID
        public var name: String
        public var role: Role
        public init(id: KnockID, name: String, role: Role) {
            self.id = id
            self.name = name
            self.role = role
        }
    }

    public enum KnockOutcome: String, Sendable, CaseIterable {
        case admitted, denied, withdrawn, expired
    }

    public struct Joined: Equatable, Sendable {
        public var you: ParticipantID
        public var role: Role
        public var room: RoomID
        public var roomName: String
        public var resolution: Resolution
        /// Everyone already in the room, in the order they joined; not including `you`.
        public var peers: [Participant]
        public var iceServers: [IceServer]
        /// Sent back in `resume` to take this seat again after the connection is lost; opaque.
        public var resumeToken: String?

        public init(you: ParticipantID, role: Role, room: RoomID, roomName: String, resolution: Resolution,
                    peers: [Participant], iceServers: [IceServer], resumeToken: String? = nil) {
            self.you = you
            self.role = role
            self.room = room
            self.roomName = roomName
            self.resolution = resolution
            self.peers = peers
            self.iceServers = iceServers
            self.resumeToken = resumeToken
        }
    }

    public var json: JSONValue {
        switch self {
        case .joined(let j):
            .object([
                "type": "joined", "you": .string(j.you.rawValue), "role": .string(j.role.rawValue),
                "room": .string(j.room.rawValue), "name": .string(j.roomName), "resolution": .string(j.resolution.rawValue),
                "peers": .array(j.peers.map(\.json)), "ice_servers": .array(j.iceServers.map(\.json)),
                "resume_token": j.resumeToken.map { .string($0) },
            ])
        case .peerJoined(let p):
            .object(["type": "peer-joined", "peer": .string(p.id.rawValue), "name": .string(p.name), "role": .string(p.role.rawValue)])
        case .peerLeft(let id): .object(["type": "peer-left", "peer": .string(id.rawValue)])
        case .signal(let from, let payload): .object(["type": "signal", "from": .string(from.rawValue), "payload": payload])
        case .error(let code, let message): .object(["type": "error", "code": .string(code.rawValue), "message": .string(message)])
        case .pong: .object(["type": "pong"])
        case .roomClosed(let reason): .object(["type": "room-closed", "reason": .string(reason)])
        case .knocking(let message): .object(["type": "knocking", "message": .string(message)])
        case .knock(let k):
            .object(["type": "knock", "knock": .string(k.id.rawValue), "name": .string(k.name), "role": .string(k.role.rawValue)])
        case .knockEnded(let id, let outcome):
            .object(["type": "knock-ended", "knock": .string(id.rawValue), "outcome": .string(outcome.rawValue)])
        }
    }

    public init(text: String) throws(ProtocolError) {
        try self.init(json: JSONValue.parseMessage(text))
    }

    public init(json: JSONValue) throws(ProtocolError) {
        let fields = try FieldReader(json)
        switch try fields.string("type") {
        case "joined":
            var peers: [Participant] = []
            for item in try fields.array("peers") { peers.append(try Participant(json: item)) }
            var servers: [IceServer] = []
            for item in try fields.array("ice_servers") { servers.append(try IceServer(json: item)) }
            guard peers.count < ProtocolLimits.maxParticipants else {
                throw .invalidValue(field: "peers", reason: "a room holds at most \(ProtocolLimits.maxParticipants) participants")
            }
            var token: String?
            if let text = try fields.optionalString("resume_token") {
                guard (1...ProtocolLimits.maxResumeTokenBytes).contains(text.utf8.count), text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f }) else {
                    throw .invalidValue(field: "resume_token", reason: "not a resume token")
                }
                token = text
            }
            self = .joined(Joined(
                you: try fields.participantID("you"), role: try fields.role("role"), room: try fields.roomID("room"),
                roomName: try fields.roomName("name"), resolution: try fields.resolution("resolution"),
                peers: peers, iceServers: servers, resumeToken: token))
        case "peer-joined":
            self = .peerJoined(Participant(
                id: try fields.participantID("peer"), name: try fields.participantName("name"), role: try fields.role("role")))
        case "peer-left": self = .peerLeft(try fields.participantID("peer"))
        case "signal": self = .signal(from: try fields.participantID("from"), payload: try fields.value("payload"))
        case "error":
            let code = try fields.string("code")
            guard let known = ErrorCode(rawValue: code) else { throw .invalidValue(field: "code", reason: "unknown error code \(code)") }
            self = .error(code: known, message: try fields.string("message"))
        case "pong": self = .pong
        case "room-closed": self = .roomClosed(reason: try fields.string("reason"))
        case "knocking": self = .knocking(message: try fields.string("message"))
        case "knock":
            self = .knock(Knock(id: try fields.knockID("knock"), name: try fields.participantName("name"), role: try fields.role("role")))
        case "knock-ended":
            let text = try fields.string("outcome")
            guard let outcome = KnockOutcome(rawValue: text) else {
                throw .invalidValue(field: "outcome", reason: "must be one of \(KnockOutcome.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            self = .knockEnded(try fields.knockID("knock"), outcome: outcome)
        case let other: throw .unknownType(other)
        }
    }
}

extension Participant {
    public var json: JSONValue {
        .object(["id": .string(id.rawValue), "name": .string(name), "role": .string(role.rawValue)])
    }

    init(json: JSONValue) throws(ProtocolError) {
        let fields = try FieldReader(json)
        self.init(id: try fields.participantID("id"), name: try fields.participantName("name"), role: try fields.role("role"))
    }
}

extension IceServer {
    public var json: JSONValue {
        .object(["urls": .array(urls.map { .string($0) }), "username": username.map { .string($0) },
                 "credential": credential.map { .string($0) }])
    }

    init(json: JSONValue) throws(ProtocolError) {
        let fields = try FieldReader(json)
        var urls: [String] = []
        for item in try fields.array("urls") {
            guard let s = item.stringValue else { throw .wrongType(field: "urls", expected: "an array of strings", got: item.typeName) }
            urls.append(s)
        }
        self.init(urls: urls, username: try fields.optionalString("username"), credential: try fields.optionalString("credential"))
    }
}
