import ConfCore

/// Why a message from the other end was refused. The text is sent back in `error` messages, so it
/// names the field and what was expected.
public enum ProtocolError: Error, Equatable, Sendable, CustomStringConvertible {
    case invalidJSON(JSONParseError)
    case notAnObject
    case missingField(String)
    case wrongType(field: String, expected: String, got: String)
    case unknownType(String)
    case invalidValue(field: String, reason: String)
    case tooLarge(what: String, limit: Int)

    public var description: String {
        switch self {
        case .invalidJSON(let e): "\(e)"
        case .notAnObject: "a message must be a JSON object with a \"type\""
        case .missingField(let f): "missing field \"\(f)\""
        case .wrongType(let f, let expected, let got): "field \"\(f)\" must be \(expected), not \(got)"
        case .unknownType(let t): "unknown message type \"\(t)\""
        case .invalidValue(let f, let reason): "field \"\(f)\": \(reason)"
        case .tooLarge(let what, let limit): "\(what) is larger than \(limit) bytes"
        }
    }
}

/// Typed access to the members of a received object, throwing `ProtocolError`s that name the field.
struct FieldReader {
    let object: JSONValue

    init(_ object: JSONValue) throws(ProtocolError) {
        guard case .object = object else { throw .notAnObject }
        self.object = object
    }

    func string(_ key: String) throws(ProtocolError) -> String {
        guard let value = object[key] else { throw .missingField(key) }
        guard let s = value.stringValue else { throw .wrongType(field: key, expected: "a string", got: value.typeName) }
        return s
    }

    func optionalString(_ key: String) throws(ProtocolError) -> String? {
        guard let value = object[key], value != .null else { return nil }
        guard let s = value.stringValue else { throw .wrongType(field: key, expected: "a string", got: value.typeName) }
        return s
    }

    func value(_ key: String) throws(ProtocolError) -> JSONValue {
        guard let value = object[key] else { throw .missingField(key) }
        return value
    }

    func array(_ key: String) throws(ProtocolError) -> [JSONValue] {
        guard let value = object[key] else { throw .missingField(key) }
        guard let a = value.arrayValue else { throw .wrongType(field: key, expected: "an array", got: value.typeName) }
        return a
    }

    func roomID(_ key: String) throws(ProtocolError) -> RoomID {
        let text = try string(key)
        guard let id = RoomID(text) else { throw .invalidValue(field: key, reason: "a room id is eight digits like 4821-7734") }
        return id
    }

    func pin(_ key: String) throws(ProtocolError) -> Pin {
        let text = try string(key)
        guard let pin = Pin(text) else { throw .invalidValue(field: key, reason: "a pin is six digits") }
        return pin
    }

    /// A participant id as the rendezvous assigns them: "p" and a number ("p1", "p12").
    func participantID(_ key: String) throws(ProtocolError) -> ParticipantID {
        let text = try string(key)
        guard let id = ParticipantID(validating: text) else {
            throw .invalidValue(field: key, reason: "a participant id is p and a number, like p2")
        }
        return id
    }

    /// A knock's id as the rendezvous assigns them: "k" and a number ("k1").
    func knockID(_ key: String) throws(ProtocolError) -> KnockID {
        let text = try string(key)
        guard let id = KnockID(text) else { throw .invalidValue(field: key, reason: "a knock id is k and a number, like k3") }
        return id
    }

    /// A participant's name, held to the same rules the rendezvous applies (Names).
    func participantName(_ key: String) throws(ProtocolError) -> String {
        let name = try string(key)
        if let problem = Names.problem(withParticipantName: name) { throw .invalidValue(field: key, reason: problem) }
        return name
    }

    func roomName(_ key: String) throws(ProtocolError) -> String {
        let name = try string(key)
        if let problem = Names.problem(withRoomName: name) { throw .invalidValue(field: key, reason: problem) }
        return name
    }

    func role(_ key: String) throws(ProtocolError) -> Role {
        let text = try string(key)
        guard let role = Role(rawValue: text) else { throw .invalidValue(field: key, reason: "must be publisher or listener") }
        return role
    }

    func resolution(_ key: String) throws(ProtocolError) -> Resolution {
        let text = try string(key)
        guard let r = Resolution(rawValue: text) else {
            throw .invalidValue(field: key, reason: "must be one of \(Resolution.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return r
    }
}

extension JSONValue {
    /// Parses a message from the network with the protocol's limits.
    static func parseMessage(_ text: String) throws(ProtocolError) -> JSONValue {
        guard text.utf8.count <= ProtocolLimits.maxMessageBytes else {
            throw .tooLarge(what: "the message", limit: ProtocolLimits.maxMessageBytes)
        }
        do {
            return try JSONValue.parse(text, maxDepth: ProtocolLimits.maxJSONDepth)
        } catch {
            throw .invalidJSON(error)
        }
    }
}
