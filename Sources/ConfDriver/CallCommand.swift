import ConfWire

/// A command typed on stdin during a call, one a line (README, "Commands").
public enum CallCommand: Equatable {
    case mute, unmute
    case mutePeer(String), unmutePeer(String)
    /// `camera off` / `camera on`.
    case camera(on: Bool)
    /// `camera next` (nil) or `camera /dev/videoN`: send from another camera.
    case switchCamera(String?)
    /// `hide WHO` / `show WHO` (a name or an id): stop or resume getting one participant's video.
    case hideVideo(String), showVideo(String)
    case say(String)
    case play(String)
    case leave
    /// A publisher's answer to a knock on a locked room.
    case admit(KnockID), deny(KnockID)

    public static let help = "mute, unmute, mute-peer WHO, unmute-peer WHO, camera off, camera on, camera next, camera /dev/videoN, hide WHO, show WHO, say TEXT, play FILE.wav, "
        + "admit KNOCK, deny KNOCK, leave"

    /// Nil for an empty line; throws a message naming the problem for anything unknown.
    public static func parse(_ line: String) throws(CommandLineProblem) -> CallCommand? {
        let trimmed = line.drop { $0 == " " || $0 == "\t" }
        guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { return nil }
        let word = String(trimmed.prefix { $0 != " " })
        let rest = String(trimmed.dropFirst(word.count).drop { $0 == " " })
        func argument(_ what: String) throws(CommandLineProblem) -> String {
            guard !rest.isEmpty else { throw CommandLineProblem(message: "\(word) needs \(what)") }
            return rest
        }
        switch word {
        case "mute": return .mute
        case "unmute": return .unmute
        case "mute-peer": return .mutePeer(try argument("a participant's name or id, like ann or p2"))
        case "unmute-peer": return .unmutePeer(try argument("a participant's name or id, like ann or p2"))
        case "camera":
            let what = try argument("off, on, next or a device like /dev/video1")
            switch what {
            case "off": return .camera(on: false)
            case "on": return .camera(on: true)
            case "next": return .switchCamera(nil)
            default:
                let path = what.hasPrefix("v4l2:") ? String(what.dropFirst(5)) : what
                guard path.hasPrefix("/") else {
                    throw CommandLineProblem(message: "camera takes off, on, next or a device like /dev/video1, not '\(what)'")
                }
                return .switchCamera(path)
            }
        case "hide": return .hideVideo(try argument("a participant's name or id, like p2"))
        case "show": return .showVideo(try argument("a participant's name or id, like p2"))
        case "say": return .say(try argument("the text to send"))
        case "play": return .play(try argument("a WAV file"))
        case "leave", "quit": return .leave
        case "admit", "deny":
            guard let knock = KnockID(try argument("a knock id, like k1")) else {
                throw CommandLineProblem(message: "\(word) needs a knock id, like k1 (from the knock line)")
            }
            return word == "admit" ? .admit(knock) : .deny(knock)
        default: throw CommandLineProblem(message: "unknown command '\(word)': use \(help)")
        }
    }
}

public struct CommandLineProblem: Error, Equatable {
    public var message: String

    public init(message: String) { self.message = message }
}
