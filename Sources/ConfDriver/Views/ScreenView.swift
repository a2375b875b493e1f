import ConfCall
import ConfCore
import ConfIO
import ConfMedia
import ConfScreen

/// The call screen on the terminal (README, "The call screen"): the pure `CallScreen` drawn by a
/// `ScreenRenderer` on a `RawTerminal`, with others' pictures in its video rows. Events come in
/// as the lines a person would have read (`show`), keys go out as command lines (`onCommand`).
///
/// Threading: the event loop thread only.
public final class ScreenView {
    var model: CallScreen
    private var renderer: ScreenRenderer
    private let terminal: RawTerminal
    private var decoder = KeyDecoder()
    /// Refreshes since the last bytes from the terminal (`tick`).
    private var quietTicks = 0
    /// Others' pictures in the video rows.
    private var grid: TerminalVideoGrid
    /// The last chat line we sent, to add the next recipients of the same message to it.
    private var lastSent: (text: String, to: [String])?
    public var onCommand: ((String) -> Void)?
    /// What was last laid out, and where its cursor and video rows were.
    private var drawn: (model: CallScreen, columns: Int, rows: Int, cursor: (row: Int, column: Int)?,
                        video: (row: Int, column: Int, rows: Int, columns: Int)?)?
    /// Whether the video rows may show (the terminal is where this call's video is seen).
    var showsVideo = false
    /// The help covered the pictures: they are drawn whole once it closes.
    private var helpCoveredPictures = false
    /// Each connected peer's four words, from its `peer-connected`.
    private(set) var words: [String: [String]] = [:]
    /// The wall clock's "HH:MM" for chat lines.
    private let time: () -> String

    public init(terminal: RawTerminal, environment: [String: String], commandsHelp: String, time: @escaping () -> String) {
        self.terminal = terminal
        self.time = time
        model = CallScreen(commandsHelp: commandsHelp)
        renderer = ScreenRenderer(colors: ColorMode.from(environment: environment))
        grid = TerminalVideoGrid(colors: renderer.colors)
        terminal.onInput = { [weak self] bytes in self?.typed(bytes) }
        terminal.onResize = { [weak self] in self?.resized() }
        terminal.onStderrLine = { [weak self] line in
            guard let self else { return }
            self.model.append(.init(time: self.time(), from: nil, text: line, kind: .problem))
        }
    }

    /// A line a person would have read: into the chat pane (chat as chat, problems in red), or
    /// nowhere for what the roster already shows (talking, stats, mutes).
    func show(_ line: TerminalText, event: CallEvent?) {
        let plain = Self.withoutStyle(line.rendered)
        let now = time()
        switch event {
        case .talking?, .audioStats?, .linkStats?, .peerMuted?, .peerVideoMuted?, .peerVideoUnmuted?, .muted?, .camera?:
            return
        case .talkingWhileMuted?:
            model.hint = "You are muted: m turns the microphone on"
            return
        case .chat(let from, let text)?:
            model.append(.init(time: now, from: from.name, text: text, kind: .message))
            lastSent = nil
            return
        case .sent(let to, let text)?:
            if let last = lastSent, last.text == text, model.chat.last?.kind == .own {
                lastSent = (text, last.to + [to.name])
                model.replaceLast(with: .init(time: now, from: "you → " + (last.to + [to.name]).joined(separator: ", "), text: text, kind: .own))
            } else {
                lastSent = (text, [to.name])
                model.append(.init(time: now, from: "you → \(to.name)", text: text, kind: .own))
            }
            return
        case .error?:
            for part in plain.split(separator: "\n") { model.append(.init(time: now, from: nil, text: String(part), kind: .problem)) }
            model.hint = plain.split(separator: "\n").first.map(String.init)
            return
        case .peerConnected(let connected)?: words[connected.peer.id.rawValue] = connected.sas
        case .peerDisconnected(let disconnected)?: words[disconnected.peer.id.rawValue] = nil
        case .peerLeft(let peer)?: words[peer.id.rawValue] = nil
        case .room(let room)?:
            model.invitation = [.init(label: room.forBrowsers ? "Those who join open this link in a browser, or run conf join LINK:"
                                                              : "Those who join run conf join LINK:", link: room.link),
                                .init(label: "Listeners (they see and hear, and send nothing):", link: room.listenLink)]
        case .rendezvousLost?: model.header.rendezvous = "reconnecting"
        case .rendezvousBack?: model.header.rendezvous = "connected"
        case .rendezvousClosed?: model.header.rendezvous = "closed"
        default: break
        }
        for part in plain.split(separator: "\n") { model.append(.init(time: now, from: nil, text: String(part), kind: .event)) }
    }

    /// OSC 52: asks the terminal to put `text` on the clipboard (xterm, kitty, foot, WezTerm,
    /// iTerm2, tmux with set-clipboard; others ignore it). Only text conf made goes this way.
    static func clipboard(_ text: String) -> String {
        "\u{1B}]52;c;" + Base64.encode(Array(text.utf8)) + "\u{1B}\\"
    }

    /// Human lines are styled for a plain terminal (bold, colour): the screen styles its own.
    static func withoutStyle(_ text: String) -> String {
        guard text.contains("\u{1B}") else { return text }
        var out = ""
        var rest = Substring(text)
        while let escape = rest.firstIndex(of: "\u{1B}") {
            out += rest[..<escape]
            rest = rest[escape...].dropFirst()
            guard rest.first == "[" else { continue }
            rest = rest.dropFirst().drop { $0.isNumber || $0 == ";" }
            if rest.first == "m" { rest = rest.dropFirst() }
        }
        return out + rest
    }

    private func typed(_ bytes: [UInt8]) {
        quietTicks = 0
        for key in decoder.keys(bytes) { act(on: key) }
        render(pictures: [], now: nil)
    }

    private func act(on key: Key) {
        switch model.handle(key) {
        case .command(let line)?: onCommand?(line)
        case .redrawAll?: invalidate()
        case .copy(let text)?: terminal.write(Self.clipboard(text))
        case nil: break
        }
    }

    /// Called on every refresh (five times a second): a paste whose end marker has not come after
    /// a second without input ends there, so that a terminal that lost it does not leave every
    /// key after it swallowed.
    func tick() {
        quietTicks += 1
        guard quietTicks >= 5, let paste = decoder.endUnfinishedPaste() else { return }
        act(on: paste)
    }

    private func resized() {
        invalidate()
        render(pictures: [], now: nil)
    }

    private func invalidate() {
        renderer.invalidate()
        drawn = nil
        grid.invalidate()
    }

    /// Draws what changed; with `now`, the pictures too (unless their byte budget holds them back).
    func render(pictures tiles: [TerminalVideoGrid.Tile], now: Instant?) {
        let size = terminal.size
        var out = ""
        // Laying out and comparing the canvas is most of the screen's cost: only when something
        // it shows changed (in a quiet call, the clock once a second).
        if drawn?.model != model || drawn?.columns != size.columns || drawn?.rows != size.rows {
            let drawing = model.draw(columns: size.columns, rows: size.rows)
            out = renderer.frame(drawing.canvas, cursor: drawing.cursor)
            drawn = (model, size.columns, size.rows, drawing.cursor, drawing.video)
        }
        guard let drawing = drawn else { return }
        if model.mode == .help {
            helpCoveredPictures = true
        } else if helpCoveredPictures {
            helpCoveredPictures = false
            grid.invalidate()
        }
        // Where the band is not (the roster grew into it, or there is none), the canvas drew over
        // it: the next band is drawn whole. With no tiles the band is cleared, so that nobody's
        // last picture stays behind.
        if drawing.video == nil { grid.invalidate() }
        if let area = drawing.video, let now, model.mode != .help, !grid.isHeldBack(at: now) {
            let pictureBytes = grid.draw(tiles, row: area.row, rows: area.rows, columns: area.columns)
            out += pictureBytes
            if !pictureBytes.isEmpty, let cursor = drawing.cursor { out += "\u{1B}[\(cursor.row + 1);\(cursor.column + 1)H" }
            grid.spent(pictureBytes.utf8.count, at: now)
        }
        if !out.isEmpty { terminal.write(out) }
    }

    /// The terminal back as it was; lines after this go to the normal screen.
    func close() {
        terminal.close()
    }
}
