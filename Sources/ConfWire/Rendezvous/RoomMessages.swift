import ConfCore

/// The body of `POST /v1/rooms`.
public struct CreateRoomRequest: Equatable, Sendable {
    public var name: String
    public var resolution: Resolution

    public init(name: String, resolution: Resolution) {
        self.name = name
        self.resolution = resolution
    }

    public var json: JSONValue { .object(["name": .string(name), "resolution": .string(resolution.rawValue)]) }

    public init(text: String) throws(ProtocolError) {
        guard text.utf8.count <= ProtocolLimits.maxCreateBodyBytes else {
            throw .tooLarge(what: "the request body", limit: ProtocolLimits.maxCreateBodyBytes)
        }
        let fields = try FieldReader(try JSONValue.parseMessage(text))
        let name = try fields.string("name")
        if let problem = Names.problem(withRoomName: name) { throw .invalidValue(field: "name", reason: problem) }
        let resolution = fields.object["resolution"] == nil ? Resolution.default : try fields.resolution("resolution")
        self.init(name: name, resolution: resolution)
    }
}

/// The answer to `POST /v1/rooms`: how to join the new room.
public struct RoomCreated: Equatable, Sendable {
    public var room: RoomID
    public var pin: Pin
    public var listenPin: Pin
    public var name: String
    public var resolution: Resolution

    public init(room: RoomID, pin: Pin, listenPin: Pin, name: String, resolution: Resolution) {
        self.room = room
        self.pin = pin
        self.listenPin = listenPin
        self.name = name
        self.resolution = resolution
    }

    public var json: JSONValue {
        .object([
            "room": .string(room.rawValue), "pin": .string(pin.digits), "listen_pin": .string(listenPin.digits),
            "name": .string(name), "resolution": .string(resolution.rawValue),
        ])
    }

    public init(text: String) throws(ProtocolError) {
        let fields = try FieldReader(try JSONValue.parseMessage(text))
        self.init(room: try fields.roomID("room"), pin: try fields.pin("pin"), listenPin: try fields.pin("listen_pin"),
                  name: try fields.string("name"), resolution: try fields.resolution("resolution"))
    }
}
