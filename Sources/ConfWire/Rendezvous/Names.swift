/// Rules for the human-chosen strings in the protocol. Both ends apply them: the CLI to give a
/// clear error before connecting, the rendezvous because it trusts no client.
public enum Names {
    public static let roomNameLength = 3...64
    public static let participantNameLength = 1...64

    /// Nil when acceptable, else what is wrong in words a user can act on.
    public static func problem(withRoomName name: String) -> String? {
        problem(with: name, what: "room name", allowed: roomNameLength)
    }

    public static func problem(withParticipantName name: String) -> String? {
        problem(with: name, what: "participant name", allowed: participantNameLength)
    }

    private static func problem(with name: String, what: String, allowed: ClosedRange<Int>) -> String? {
        let count = name.count
        if count < allowed.lowerBound {
            return "the \(what) '\(name)' is too short: use \(allowed.lowerBound) to \(allowed.upperBound) characters"
        }
        if count > allowed.upperBound {
            return "the \(what) is too long (\(count) characters): use \(allowed.lowerBound) to \(allowed.upperBound)"
        }
        if name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0.properties.generalCategory == .format }) {
            return "the \(what) contains control characters: use printable text"
        }
        if name.first?.isWhitespace == true || name.last?.isWhitespace == true {
            return "the \(what) starts or ends with a space: remove it"
        }
        return nil
    }
}
