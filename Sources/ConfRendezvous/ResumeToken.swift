import ConfWire

/// What a participant needs to take its seat back after its connection to the rendezvous was lost,
/// authenticated with the server's key (docs/SECURITY.md, "Resume tokens").
///
/// It carries everything needed to re-seat, and to recreate the room after the rendezvous was
/// restarted with the same secret (room name and resolution; the pins are derived from the
/// secret): never a pin. Text form, all printable ASCII:
///
///     base64url(fields joined by "\n") "." base64url(HMAC-SHA256(key, "conf resume v1." payload))
///
/// Names may not contain control characters (`Names`), so "\n" cannot occur inside a field.
struct ResumeToken: Equatable {
    /// The rendezvous process that issued it: tells "this room expired here" from "the server restarted".
    var instance: UInt64
    var room: RoomID
    var roomName: String
    var resolution: Resolution
    var participant: Participant
    /// Bumped each time the seat is taken back: only the latest token of a seat is accepted.
    var generation: Int
    /// Unix time in seconds after which the token is refused.
    var expires: Int64

    private static let version = "v1"
    private static let macLabel = "conf resume v1."

    func signed(with key: ServerKey) -> String {
        let fields = [Self.version, String(instance, radix: 16), room.rawValue, roomName, resolution.rawValue,
                      participant.id.rawValue, participant.role.rawValue, participant.name, String(generation), String(expires)]
        let payload = Base64URL.encode(Array(fields.joined(separator: "\n").utf8))
        return payload + "." + Base64URL.encode(key.authenticate(Self.macLabel + payload))
    }

    /// Nil unless the token is well formed and its MAC is the key's; expiry is the caller's to check.
    init?(verifying text: String, key: ServerKey) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2, let mac = Base64URL.decode(parts[1]), mac.count == 32,
            Self.constantTimeEqual(mac, key.authenticate(Self.macLabel + parts[0])),
            let payload = Base64URL.decode(parts[0])
        else { return nil }
        let fields = String(decoding: payload, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard fields.count == 10, fields[0] == Self.version,
            let instance = UInt64(fields[1], radix: 16), let room = RoomID(fields[2]),
            Names.problem(withRoomName: fields[3]) == nil, let resolution = Resolution(rawValue: fields[4]),
            let id = ParticipantID(validating: fields[5]), let role = Role(rawValue: fields[6]),
            Names.problem(withParticipantName: fields[7]) == nil,
            let generation = Int(fields[8]), let expires = Int64(fields[9])
        else { return nil }
        self.init(instance: instance, room: room, roomName: fields[3], resolution: resolution,
                  participant: Participant(id: id, name: fields[7], role: role), generation: generation, expires: expires)
    }

    init(instance: UInt64, room: RoomID, roomName: String, resolution: Resolution, participant: Participant,
         generation: Int, expires: Int64) {
        self.instance = instance
        self.room = room
        self.roomName = roomName
        self.resolution = resolution
        self.participant = participant
        self.generation = generation
        self.expires = expires
    }

    private static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
