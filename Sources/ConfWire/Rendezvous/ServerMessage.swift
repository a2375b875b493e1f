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

    public struct Joined: Equatable, Sendable {
        public var you: ParticipantID
        public var role: Role
        public var room: RoomID
        public var roomName: String
        public var resolution: Resolution
        /// Everyone already in the room, in the order they joined; not including `you`.
        public var peers: [Participant]
        public var iceServers: [IceServer]

        public init(you: ParticipantID, role: Role, room: RoomID, roomName: String, resolution: Resolution,
                    peers: [Participant], iceServers: [IceServer]) {
            self.you = you
            self.role = role
            self.room = room
            self.roomName = roomName
            self.resolution = resolution
            self.peers = peers
            self.iceServers = iceServers
        }
    }

    public var json: JSONValue {
        switch self {
        case .joined(let j):
            .object([
                "type": "joined", "you": .string(j.you.rawValue), "role": .string(j.role.rawValue),
                "room": .string(j.room.rawValue), "name": .string(j.roomName), "resolution": .string(j.resolution.rawValue),
                "peers": .array(j.peers.map(\.json)), "ice_servers": .array(j.iceServers.map(\.json)),
            ])
        case .peerJoined(let p):
            .object(["type": "peer-joined", "peer": .string(p.id.rawValue), "name": .string(p.name), "role": .string(p.role.rawValue)])
        case .peerLeft(let id): .object(["type": "peer-left", "peer": .string(id.rawValue)])
        case .signal(let from, let payload): .object(["type": "signal", "from": .string(from.rawValue), "payload": payload])
        case .error(let code, let message): .object(["type": "error", "code": .string(code.rawValue), "message": .string(message)])
        case .pong: .object(["type": "pong"])
        case .roomClosed(let reason): .object(["type": "room-closed", "reason": .string(reason)])
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
            self = .joined(Joined(
                you: ParticipantID(try fields.string("you")), role: try fields.role("role"), room: try fields.roomID("room"),
                roomName: try fields.string("name"), resolution: try fields.resolution("resolution"),
                peers: peers, iceServers: servers))
        case "peer-joined":
            self = .peerJoined(Participant(
                id: ParticipantID(try fields.string("peer")), name: try fields.string("name"), role: try fields.role("role")))
        case "peer-left": self = .peerLeft(ParticipantID(try fields.string("peer")))
        case "signal": self = .signal(from: ParticipantID(try fields.string("from")), payload: try fields.value("payload"))
        case "error":
            let code = try fields.string("code")
            guard let known = ErrorCode(rawValue: code) else { throw .invalidValue(field: "code", reason: "unknown error code \(code)") }
            self = .error(code: known, message: try fields.string("message"))
        case "pong": self = .pong
        case "room-closed": self = .roomClosed(reason: try fields.string("reason"))
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
        self.init(id: ParticipantID(try fields.string("id")), name: try fields.string("name"), role: try fields.role("role"))
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
