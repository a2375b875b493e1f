import ConfCall
import ConfCore
import ConfIO
import ConfMedia
import ConfWire

/// A person's controls of the call: where commands come from (stdin's lines, the call screen's
/// keys and input line, the window's keys), each parsed into one `CallCommand` and run here
/// (CallControls+Commands) on the engine and the devices. A bad one is reported as an event and
/// the call goes on.
///
/// Threading: the event loop thread only.
public final class CallControls {
    unowned let driver: CallDriver
    /// stdin's reader, when commands come from stdin.
    private var commands: LineReader?
    /// The call screen not open yet (`openScreenLater`): stdin read in lines until it is.
    private var waitingScreen: (reader: LineReader, open: () -> Void)?

    var engine: CallEngine { driver.engine }
    var reporter: EventReporter { driver.reporter }
    var devices: CallDevices { driver.devices }

    init(driver: CallDriver) {
        self.driver = driver
    }

    /// Commands on stdin, one a line.
    public func readCommands(for session: ParticipantSession) {
        let reader = LineReader(loop: driver.loop)
        reader.onLine = { [weak self, weak session] line in
            if let self, let session { self.runLine(line, session: session) }
        }
        reader.onTooLong = { [reporter] in
            let message = "a command line is longer than \(LineReader.maxLineBytes / 1024) KiB: it was ignored"
            reporter.emit(.error(.badCommand(message)))
        }
        commands = reader
    }

    /// Opens the call screen with `open` once someone else joins (`openWaitingScreen`) or the
    /// person presses Enter, so that what was printed before it (the invitation) can be read and
    /// copied from the normal screen first.
    public func openScreenLater(_ open: @escaping () -> Void) {
        let reader = LineReader(loop: driver.loop)
        reader.onLine = { [weak self] _ in self?.openWaitingScreen() }
        reader.onEnd = { [weak self] in self?.openWaitingScreen() }
        waitingScreen = (reader, open)
    }

    /// Opens the call screen now if it waits (`openScreenLater`).
    public func openWaitingScreen() {
        guard let waiting = waitingScreen else { return }
        waitingScreen = nil
        waiting.reader.stop()
        waiting.open()
    }

    /// The call screen on `terminal`; its keys and input line run commands as stdin's would. It
    /// shows the video when `showsVideo` (the terminal view was asked for, or no window shows it).
    public func startScreen(on terminal: RawTerminal, for session: ParticipantSession, joined: ServerMessage.Joined, name: String,
                            showsVideo: Bool) {
        let view = ScreenView(terminal: terminal, environment: Console.environment(), commandsHelp: CallCommand.help,
                              time: localHourAndMinute)
        view.onCommand = { [weak self, weak session] line in
            if let self, let session { self.runLine(line, session: session) }
        }
        terminal.onEnd = { [weak session] in session?.leave(reason: .command) }
        driver.views.startScreen(view, you: joined.you, name: name, joined: joined, showsVideo: showsVideo)
    }

    /// The window (`--video-view window`, or `auto` with a display); its keys run as commands.
    /// A window that cannot open is said once and the call goes on without it.
    public func openWindow(for session: ParticipantSession, title: String) {
        let window: VideoWindow
        do {
            window = try VideoWindow(title: title)
        } catch {
            reporter.note("conf: \(error.description): the call goes on without the video window (--video-view none says so)")
            return
        }
        if !window.drawsNames { reporter.note("conf: no font found for names in the video window (install fonts-dejavu-core)") }
        driver.views.startWindow(window) { [weak self, weak session] action in
            guard let self, let session else { return }
            let command: CallCommand
            switch action {
            case .toggleMute: command = self.engine.audioMuted ? .unmute : .mute
            case .toggleCamera: command = .camera(on: self.engine.videoMuted)
            case .leave: command = .leave
            }
            do throws(CommandLineProblem) {
                try self.run(command, session: session)
            } catch {
                self.reporter.emit(.error(.badCommand(error.message)))
            }
        }
    }

    /// A command line (stdin's, or the screen's).
    private func runLine(_ line: String, session: ParticipantSession) {
        do throws(CommandLineProblem) {
            guard let command = try CallCommand.parse(line) else { return }
            try run(command, session: session)
        } catch {
            reporter.emit(.error(.badCommand(error.message)))
        }
    }

    private func run(_ command: CallCommand, session: ParticipantSession) throws(CommandLineProblem) {
        switch command {
        case .mute: setAudioMuted(true)
        case .unmute: setAudioMuted(false)
        case .mutePeer(let who): try setLocallyMuted(who, true)
        case .unmutePeer(let who): try setLocallyMuted(who, false)
        case .camera(let on): try setCamera(on: on)
        case .switchCamera(let path): try switchCamera(to: path)
        case .hideVideo(let who): try setVideoHidden(who, true)
        case .showVideo(let who): try setVideoHidden(who, false)
        case .say(let text): try say(text)
        case .play(let path):
            do {
                devices.audio?.play(try WAVFile.read(path: path))
            } catch {
                throw CommandLineProblem(message: "play: \(error)")
            }
        case .leave: session.leave(reason: .command)
        case .admit(let knock), .deny(let knock):
            guard session.answer(knock, admit: command == .admit(knock)) else {
                throw CommandLineProblem(message: "not connected to the rendezvous right now: try again in a moment")
            }
        }
    }

    /// No more commands from stdin (we are leaving).
    func stop() {
        commands?.stop()
    }
}
