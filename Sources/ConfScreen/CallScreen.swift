/// What the call screen shows and how its keys act, for a person in a call in a terminal: a
/// header, the roster, the video grid's place, the chat pane and the input line. Pure: the driver
/// sets the facts (`header`, `members`, `append`), feeds keys (`handle`) and runs the command
/// lines that come back; `draw` lays it all out on a `Canvas` of any size.
///
/// Everything here that came from the network (names, chat, reasons, words) is put on the canvas
/// through `Canvas.put`, which escapes it.
public struct CallScreen: Equatable, Sendable {
    public struct Header: Equatable, Sendable {
        public var roomName = ""
        public var room = ""
        public var elapsed: Duration = .zero
        /// nil: this participant has no microphone (a listener, or --no-audio).
        public var microphoneMuted: Bool?
        /// nil: no camera in this call.
        public var cameraOff: Bool?
        /// The rendezvous connection: "connected", "reconnecting"...
        public var rendezvous = "connected"
        public var listener = false

        public init() {}
    }

    public struct Member: Equatable, Sendable {
        public var id: String
        public var name: String
        public var listener = false
        public var connected = false
        /// "host", "srflx", "relay"...
        public var path: String?
        public var roundTrip: Duration?
        public var lossPercent: Double?
        public var jitter: Duration?
        public var muted = false
        public var cameraOff = false
        public var mutedHere = false
        public var hidden = false
        /// The last audio level heard, in dB below full scale (0 loudest, 127 silence).
        public var level: UInt8?
        public var talking = false
        /// The short authentication words to compare aloud, until marked compared.
        public var words: [String] = []

        public init(id: String, name: String) {
            self.id = id
            self.name = name
        }

        public var quality: LinkQuality? {
            guard connected else { return nil }
            return LinkQuality(roundTrip: roundTrip, lossPercent: lossPercent, jitter: jitter)
        }
    }

    public struct ChatLine: Equatable, Sendable {
        public enum Kind: Equatable, Sendable { case message, own, event, problem }
        public var time: String
        public var from: String?
        public var text: String
        public var kind: Kind

        public init(time: String, from: String?, text: String, kind: Kind) {
            (self.time, self.from, self.text, self.kind) = (time, from, text, kind)
        }
    }

    /// One link to hand over (`i`), with what it is for.
    public struct Invite: Equatable, Sendable {
        public var label: String
        public var link: String

        public init(label: String, link: String) { (self.label, self.link) = (label, link) }
    }

    public enum Mode: Equatable, Sendable { case normal, typing, help, confirmingLeave, invitation }

    /// What a key asks of the driver.
    public enum Action: Equatable, Sendable {
        /// A command line, as typed on stdin ("mute", "mute-peer p2", "say hi").
        case command(String)
        /// Draw everything again (Ctrl-L: something else wrote on the screen).
        case redrawAll
        /// Put this text on the clipboard (through the terminal, where it allows).
        case copy(String)
    }

    public var header = Header()
    /// Ourselves first, then the others.
    public var me = Member(id: "you", name: "you")
    public var others: [Member] = [] {
        didSet { if let selected, !others.contains(where: { $0.id == selected }) { self.selected = others.first?.id } }
    }
    public internal(set) var chat: [ChatLine] = []
    /// A short line above the input: the last problem, a hint. Cleared by the next key.
    public var hint: String?
    public internal(set) var mode = Mode.normal
    public internal(set) var input = LineEditor()
    /// The participant the participant keys act on.
    public internal(set) var selected: String?
    /// Whose words were marked compared (`c`): not shown again.
    public internal(set) var compared: Set<String> = []
    /// Chat lines scrolled back from the newest (Page Up / Page Down).
    public internal(set) var chatScroll = 0
    /// The links to hand over, the first one copied by `i`; empty where this participant has none.
    public var invitation: [Invite] = []
    /// Whether rows are kept for the terminal video grid.
    public var showsVideo = false
    /// The stdin commands, for `?`.
    public let commandsHelp: String

    public static let chatLines = 500

    public init(commandsHelp: String) { self.commandsHelp = commandsHelp }

    public mutating func append(_ line: ChatLine) {
        chat.append(line)
        if chat.count > Self.chatLines { chat.removeFirst(chat.count - Self.chatLines) }
        if chatScroll > 0 { chatScroll += 1 }  // what the reader scrolled to stays in place
    }

    /// Rewrites the newest line (a message sent on to one more participant).
    public mutating func replaceLast(with line: ChatLine) {
        guard !chat.isEmpty else { return append(line) }
        chat[chat.count - 1] = line
    }
}
