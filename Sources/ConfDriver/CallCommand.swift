import ConfWire

/// A command typed on stdin during a call, one a line, or after `/` on the call screen. `reference`
/// is the one description of them: `--help`, the man page, docs/REFERENCE.md and the screen's
/// `?` are made from it, and a test parses each of its examples.
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

    /// One form of a command: how it is written, what it does, and a line that runs it.
    public struct Form: Sendable {
        public let usage: String
        public let meaning: String
        public let example: String
    }

    public static let reference: [Form] = [
        Form(usage: "mute", meaning: "turn your microphone off (others hear nothing from you)", example: "mute"),
        Form(usage: "unmute", meaning: "turn it on again", example: "unmute"),
        Form(usage: "mute-peer WHO", meaning: "stop playing one participant, here only; WHO is a name or an id (two of one name: the id)",
             example: "mute-peer ann"),
        Form(usage: "unmute-peer WHO", meaning: "play them again", example: "unmute-peer p2"),
        Form(usage: "camera off", meaning: "stop sending video (capture and encoding stop too)", example: "camera off"),
        Form(usage: "camera on", meaning: "send video again, from a key frame", example: "camera on"),
        Form(usage: "camera next", meaning: "send from the next camera conf can read (conf devices lists them)", example: "camera next"),
        Form(usage: "camera /dev/videoN", meaning: "send from this camera", example: "camera /dev/video1"),
        Form(usage: "hide WHO", meaning: "stop getting one participant's video (it stops sending it to you)", example: "hide ann"),
        Form(usage: "show WHO", meaning: "get it again", example: "show ann"),
        Form(usage: "say TEXT", meaning: "chat to everyone in the room; a peer whose link is still coming up gets it when it is up, "
             + "and typed before anyone is connected it waits for the first", example: "say hello"),
        Form(usage: "play FILE.wav", meaning: "mix a WAV file into what you send, once", example: "play chime.wav"),
        Form(usage: "admit KNOCK", meaning: "let in someone knocking on a room locked by wrong pins (the knock line names KNOCK)",
             example: "admit k1"),
        Form(usage: "deny KNOCK", meaning: "turn them away", example: "deny k1"),
        Form(usage: "leave", meaning: "leave the call (quit does the same)", example: "leave"),
    ]

    /// The commands' forms in one line, as errors and the screen's `?` list them.
    public static let help = reference.map(\.usage).joined(separator: ", ")

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
