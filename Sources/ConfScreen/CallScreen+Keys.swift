/// The screen's keys (README, "The call screen"). Single keys act at once; Enter opens the input
/// line, where a line is chat and a line starting with `/` is a stdin command (`/mute`,
/// `/camera next`); `q` asks once before leaving.
extension CallScreen {
    /// One line of the keys' reference: what is pressed, the keys it stands for, what they do.
    public struct KeyHelp: Sendable {
        public let label: String
        public let keys: [Key]
        public let meaning: String
        /// The few words the `?` box has room for.
        public let short: String
        /// How the `?` box names the keys, when the label is too long for it.
        public let boxLabel: String

        init(label: String, keys: [Key], meaning: String, short: String, boxLabel: String? = nil) {
            self.label = label
            self.keys = keys
            self.meaning = meaning
            self.short = short
            self.boxLabel = boxLabel ?? label
        }
    }

    /// The keys outside the input line: the `?` box, the man page and docs/REFERENCE.md list
    /// these, and a test presses each.
    public static let keyReference: [KeyHelp] = [
        KeyHelp(label: "m", keys: [.character("m")], meaning: "microphone on or off", short: "microphone"),
        KeyHelp(label: "v", keys: [.character("v")], meaning: "camera on or off", short: "camera"),
        KeyHelp(label: "Tab, Shift-Tab, Up, Down, j, k", keys: [.tab, .backTab, .down, .up, .character("j"), .character("k")],
                meaning: "select someone", short: "select someone", boxLabel: "Tab"),
        KeyHelp(label: "x", keys: [.character("x")], meaning: "mute the one selected here (others still hear them), or play them again", short: "mute them here"),
        KeyHelp(label: "h", keys: [.character("h")], meaning: "hide their video, or show it", short: "hide their video"),
        KeyHelp(label: "c", keys: [.character("c")], meaning: "mark their words as compared", short: "words compared"),
        KeyHelp(label: "Enter", keys: [.enter], meaning: "chat: type a line, Enter sends it to everyone; Up and Down recall earlier lines",
                short: "chat"),
        KeyHelp(label: "i", keys: [.character("i")],
                meaning: "the invitation: the links to hand over, shown whole, the first copied to the clipboard where the terminal allows (OSC 52)",
                short: "invitation"),
        KeyHelp(label: "/", keys: [.character("/")], meaning: "a command, as on stdin: /camera next", short: "a command"),
        KeyHelp(label: "PgUp, PgDn, End", keys: [.pageUp, .pageDown, .end], meaning: "scroll the chat (End: back to the newest)", short: "scroll chat", boxLabel: "PgUp PgDn"),
        KeyHelp(label: "?", keys: [.character("?")], meaning: "these keys", short: "these keys"),
        KeyHelp(label: "q", keys: [.character("q")], meaning: "leave (asks once); Ctrl-C leaves at once", short: "leave"),
        KeyHelp(label: "Ctrl-L", keys: [.control("l")], meaning: "draw the screen again", short: "draw again"),
    ]

    public mutating func handle(_ key: Key) -> Action? {
        switch mode {
        case .typing: return typing(key)
        case .help, .invitation:
            mode = .normal
            return nil
        case .confirmingLeave:
            mode = .normal
            hint = nil
            if key == .character("y") || key == .character("q") { return .command("leave") }
            return nil
        case .normal:
            hint = nil
            return normal(key)
        }
    }

    private mutating func normal(_ key: Key) -> Action? {
        switch key {
        case .character("m"):
            guard let muted = header.microphoneMuted else {
                hint = header.listener ? "a listener has no microphone in the call" : "no microphone in this call"
                return nil
            }
            return .command(muted ? "unmute" : "mute")
        case .character("v"):
            guard let off = header.cameraOff else {
                hint = header.listener ? "a listener sends no video" : "no camera in this call (--video-source)"
                return nil
            }
            return .command(off ? "camera on" : "camera off")
        case .tab, .down, .character("j"): select(step: 1)
        case .backTab, .up, .character("k"): select(step: -1)
        case .character("x"):
            guard let member = selectedMember() else { return nil }
            return .command("\(member.mutedHere ? "unmute-peer" : "mute-peer") \(member.id)")
        case .character("h"):
            guard let member = selectedMember() else { return nil }
            return .command("\(member.hidden ? "show" : "hide") \(member.id)")
        case .character("c"):
            guard let member = selectedMember() else { return nil }
            if compared.contains(member.id) { compared.remove(member.id) } else { compared.insert(member.id) }
        case .enter:
            mode = .typing
            input.clear()
        case .character("i"):
            guard let first = invitation.first else {
                hint = "no invitation here: the host's screen has the links (so does the room event)"
                return nil
            }
            mode = .invitation
            return .copy(first.link)
        case .paste:
            // Pasted text goes into the input line, to be read before Enter sends it.
            mode = .typing
            input.clear()
            _ = input.handle(key)
        case .character("/"):
            mode = .typing
            input.start(with: "/")
        case .character("?"): mode = .help
        case .character("q"):
            mode = .confirmingLeave
            hint = "Leave the call? y or q leaves, any other key stays"
        case .control("c"): return .command("leave")
        case .control("l"): return .redrawAll
        case .pageUp: chatScroll = min(max(0, chat.count - 1), chatScroll + 5)
        case .pageDown: chatScroll = max(0, chatScroll - 5)
        case .end: chatScroll = 0
        case .escape: break
        default: hint = "? shows the keys"
        }
        return nil
    }

    private mutating func typing(_ key: Key) -> Action? {
        switch key {
        case .escape, .control("c"):
            input.clear()
            mode = .normal
            return nil
        case .tab:
            return nil
        default:
            break
        }
        guard case .entered(let line) = input.handle(key) else { return nil }
        mode = .normal
        let trimmed = line.drop { $0 == " " }
        if trimmed.hasPrefix("/") {
            let command = String(trimmed.dropFirst())
            return command.isEmpty ? nil : .command(command)
        }
        return trimmed.isEmpty ? nil : .command("say " + line)
    }

    private mutating func select(step: Int) {
        guard !others.isEmpty else {
            hint = "nobody else is here yet"
            return
        }
        let index = selected.flatMap { id in others.firstIndex { $0.id == id } }
        let next = index.map { ($0 + step + others.count) % others.count } ?? (step > 0 ? 0 : others.count - 1)
        selected = others[next].id
    }

    /// The selected participant; with nobody selected, the only other one, if there is one.
    private mutating func selectedMember() -> Member? {
        if selected == nil, others.count == 1 { selected = others[0].id }
        guard let selected, let member = others.first(where: { $0.id == selected }) else {
            hint = others.isEmpty ? "nobody else is here yet" : "select someone first: Tab or the arrows"
            return nil
        }
        return member
    }
}
