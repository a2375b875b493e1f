import ConfCall
import ConfCore
import ConfCrypto
import ConfDriver
import ConfIO
import ConfMedia
import ConfWire
#if canImport(Glibc)
import Glibc
#endif

/// Builds the peer connections for a participant session from the command line: ICE servers,
/// the DTLS certificate, the connect timeout; wires the room's events into a `CallDriver`.
enum CallSetup {
    struct Options {
        var iceServers: [IceServerAddress]
        var connectTimeout: Duration
        var say: [String]
        var relayOnly: Bool
        /// `--ca`: also the authorities TURN-over-TLS servers are checked against.
        var trust: String?
        var audio: AudioSettings
        var startMuted: Bool
        var playAtStart: [Int16]?
        var stats: Bool
        var video: VideoSettings
        var view: VideoView
        /// `--video-view auto` with no display: the screen may draw the video in the terminal.
        var viewIsAuto: Bool
        var screen: Bool
        /// Ours, as the roster shows it.
        var name: String
        /// False for `conf host`: it stays in its room whoever fails to connect.
        var leavesWhenNobodyConnects = true
    }

    /// `--video-view`: where others' video is shown (`auto` is decided when the options are read).
    enum VideoView { case none, terminal, window }

    static func options(_ context: CommandContext) throws(CommandFailure) -> Options {
        var servers: [IceServerAddress] = []
        for text in context.invocation.values("stun") {
            guard case .success(let endpoint) = HostPort.parse(text, defaultHost: ""), endpoint.port != 0 else {
                throw context.usage("--stun '\(text)': give HOST:PORT, like 192.0.2.1:3478")
            }
            servers.append(try resolve(endpoint, credentials: nil, option: "--stun"))
        }
        for option in context.invocation.values("turn") {
            guard let turn = TURNOption(option), turn.endpoint.port != 0 else { throw context.usage("--turn '\(option)': \(TURNOption.form)") }
            var server = try resolve(turn.endpoint, credentials: (turn.username, turn.password), option: "--turn")
            server.overTCP = turn.transport != .udp
            server.tlsServerName = turn.transport == .tls ? turn.endpoint.host : nil
            servers.append(server)
        }
        var timeout = Duration.seconds(15)
        if let text = context.setting("connect-timeout") {
            guard let seconds = Double(text), seconds > 0, seconds < 86_400 else {
                throw context.usage("--connect-timeout '\(text)': give a positive number of seconds")
            }
            timeout = .nanoseconds(Int64(seconds * 1e9))
        }
        let say = context.invocation.values("say")
        for text in say where text.utf8.count > 16_384 {
            throw context.usage("--say: a chat message is at most 16384 bytes, this one has \(text.utf8.count)")
        }
        let relayOnly = context.invocation.flag("relay-only")
        var play: [Int16]?
        if let path = context.setting("play") {
            do {
                play = try WAVFile.read(path: path)
            } catch {
                throw CommandFailure(.usage, code: "bad-audio-file", "--play: \(error)")
            }
        }
        var audio = try AudioSettings.parse(context)
        let video = try VideoSettings.parse(context)
        let view: VideoView
        let screen: Bool
        switch context.setting("ui") {
        case nil, "auto": screen = !context.json && isatty(0) == 1 && isatty(1) == 1
        case "lines": screen = false
        case "screen":
            guard !context.json, isatty(0) == 1, isatty(1) == 1 else {
                throw context.usage("--ui screen needs stdin and stdout to be a terminal, and no --json (--ui lines prints event lines)")
            }
            screen = true
        case let other?: throw context.usage("--ui '\(other)': use auto, screen or lines")
        }
        switch context.setting("video-view") {
        case nil, "auto": view = video.enabled && VideoWindow.displayAvailable ? .window : .none
        case "none": view = .none
        case "terminal":
            guard !context.json, terminalSize() != nil else {
                throw context.usage("--video-view terminal needs stdout to be a terminal (and no --json)")
            }
            view = .terminal
        case "window":
            guard VideoWindow.displayAvailable else {
                throw context.usage("--video-view window needs a display: neither DISPLAY nor WAYLAND_DISPLAY is set (--video-view terminal draws in the terminal)")
            }
            guard video.enabled else { throw context.usage("--video-view window shows video, and --no-video turns video off: give one of them") }
            view = .window
        case let other?: throw context.usage("--video-view '\(other)': use auto, window, terminal or none")
        }
        // Every option is valid: now look for the devices asked for, before the room is made.
        try video.checkDevice()
        try audio.createRecordDirectory()
        try audio.connectSoundServer()
        return Options(iceServers: servers, connectTimeout: timeout, say: say, relayOnly: relayOnly, trust: try context.caFile(), audio: audio,
                       startMuted: context.invocation.flag("muted"), playAtStart: play, stats: context.invocation.flag("stats"), video: video,
                       view: view, viewIsAuto: (context.setting("video-view") ?? "auto") == "auto", screen: screen,
                       name: try context.participantName())
    }

    static func resolve(_ endpoint: HostPort, credentials: (String, String)?, option: String) throws(CommandFailure) -> IceServerAddress {
        guard let ip = HostResolver.address(endpoint.host) else {
            throw CommandFailure(.usage, code: "usage", "\(option) \(endpoint): cannot resolve '\(endpoint.host)' to an IP address")
        }
        return IceServerAddress(host: ip, port: endpoint.port, credentials: credentials)
    }

    /// Attaches peer connections to `session`.
    static func attach(to session: ParticipantSession, loop: EventLoop, reporter: EventReporter, options: Options)
        throws(CommandFailure) -> CallDriver
    {
        SRTPSession.prepareLibrary()  // ~75 ms, off the event loop while we join
        let certificate: DTLSCertificate
        do {
            certificate = try DTLSCertificate()
        } catch {
            throw CommandFailure(.failure, code: "crypto", "cannot make the DTLS certificate: \(error)")
        }
        if let missing = options.audio.missingDevices {
            reporter.emit(.devicesMissing(missing.devices, reason: missing.reason))
        }
        let timeout = options.connectTimeout
        var configuration = CallEngine.Configuration()
        configuration.connectTimeout = timeout
        configuration.say = options.say
        configuration.failsWhenNobodyConnects = options.leavesWhenNobodyConnects
        configuration.statsInterval = options.stats ? .seconds(2) : nil
        configuration.receivesAudio = options.audio.enabled
        configuration.receivesVideo = options.video.enabled
        configuration.videoBitrateKbps = options.video.bitrateKbps
        configuration.audioBitrateKbps = options.audio.bitrate / 1000
        let driver = CallDriver(
            loop: loop, reporter: reporter, clock: loop.clock, random: KernelRandom(), security: CertificateSecurity(certificate: certificate),
            configuration: configuration, settings: .init(iceServers: options.iceServers, relayOnly: options.relayOnly, trust: options.trust),
            sendSignal: { [weak session] peer, payload in session?.sendSignal(to: peer, payload) },
            onCallFailed: { [weak session] noPath in
                let advice = noPath
                    ? "no network path: UDP to the others seems blocked here or there (a firewall, or NATs that need a relay) — try "
                        + "--turn USER:PASS@HOST:PORT?transport=tcp with a TURN server both sides can reach over TCP, or a network that lets UDP through"
                    : "behind a strict NAT or firewall? try --stun or --turn"
                session?.leave(failing: CommandFailure(
                    .noPeerConnected, code: "no-peer-connected",
                    "could not connect to any peer within \(Int(timeout.milliseconds / 1000)) s — \(advice)"))
            })
        session.onJoined = { [weak session, options] joined in
            let offered = IceServerAddress.addresses(from: joined.iceServers).filter { !options.iceServers.contains($0) }
            if options.relayOnly && !(options.iceServers + offered).contains(where: { $0.credentials != nil }) {
                session?.leave(failing: CommandFailure(.usage, code: "usage",
                    "--relay-only needs a TURN server, and neither --turn nor the rendezvous gave one: add --turn USER:PASS@HOST:PORT"))
                return
            }
            driver.settings.iceServers += offered
            let publishes = joined.role == .publisher
            do throws(CommandFailure) {
                let media = try CallMedia.open(audio: options.audio, video: options.video, sends: publishes, resolution: joined.resolution,
                                               loop: loop, reporter: reporter)
                (driver.audio, driver.video, driver.sounds) = (media.audio, media.video, media.sounds)
                driver.openCamera = CallMedia.cameraOpener(resolution: joined.resolution, loop: loop)
            } catch {
                session?.leave(failing: error)
                return
            }
            if let sound = options.playAtStart { driver.audio?.play(sound) }
            driver.engine.configuration.sendsAudio = driver.audio?.sends ?? false
            driver.engine.configuration.sendsVideo = driver.video?.sends ?? false
            driver.engine.configuration.smallVideo = driver.video?.makesSmallEncoding ?? false
            driver.joined(joined)
            if options.screen, let session, let terminal = RawTerminal(loop: loop) {
                startScreen(terminal, for: driver, session: session, joined: joined, options: options, reporter: reporter)
            } else {
                if options.view == .terminal { driver.startTerminalView(TerminalView()) }
                if options.screen { reporter.note("conf: cannot take the terminal for the call screen: line commands on stdin instead") }
            }
            if options.view == .window, let session {
                openWindow(for: driver, session: session, title: "conf — \(joined.roomName)", reporter: reporter)
            }
            if options.startMuted { driver.setAudioMuted(true) }
        }
        if !options.screen { driver.commands = commandReader(loop: loop, driver: driver, session: session, reporter: reporter) }
        session.onLeaving = { driver.feed(.leave) }
        driver.onNetworkChanged = { [weak session] in session?.networkChanged() }
        session.onSignalPathConfirmed = { driver.feed(.networkChanged) }
        session.connectedPeers = { driver.engine.connectedPeers }
        session.onPeerJoined = { driver.feed(.peerJoined($0)) }
        session.onPeerLeft = { driver.peerLeft($0) }
        session.onSignal = { driver.feed(.signal(from: $0, $1)) }
        return driver
    }

    /// The window (`--video-view window`, or `auto` with a display); its keys run as commands.
    /// A window that cannot open is said once and the call goes on without it.
    private static func openWindow(for driver: CallDriver, session: ParticipantSession, title: String, reporter: EventReporter) {
        let window: VideoWindow
        do {
            window = try VideoWindow(title: title)
        } catch {
            reporter.note("conf: \(error.description): the call goes on without the video window (--video-view none says so)")
            return
        }
        if !window.drawsNames { reporter.note("conf: no font found for names in the video window (install fonts-dejavu-core)") }
        driver.startWindow(window) { [weak session] action in
            let command: CallCommand
            switch action {
            case .toggleMute: command = driver.engine.audioMuted ? .unmute : .mute
            case .toggleCamera: command = .camera(on: driver.engine.videoMuted)
            case .leave: command = .leave
            }
            guard let session else { return }
            do throws(CommandLineProblem) {
                try run(command, driver: driver, session: session)
            } catch {
                reporter.emit(.error(.badCommand(error.message)))
            }
        }
    }

    /// The call screen; its keys and input line run commands as stdin's would. It shows the video
    /// when the terminal view was asked for, or with `auto` when no window does.
    private static func startScreen(_ terminal: RawTerminal, for driver: CallDriver, session: ParticipantSession, joined: ServerMessage.Joined,
                                    options: Options, reporter: EventReporter) {
        let view = ScreenView(terminal: terminal, environment: Console.environment(), commandsHelp: CallCommand.help,
                              time: localHourAndMinute)
        view.onCommand = { [weak session] line in
            if let session { runLine(line, driver: driver, session: session, reporter: reporter) }
        }
        terminal.onEnd = { [weak session] in session?.leave(reason: .command) }
        let showsVideo = options.view == .terminal || (options.viewIsAuto && options.view == .none && options.video.enabled)
        driver.startScreen(view, you: joined.you, name: options.name, joined: joined, showsVideo: showsVideo)
    }

    /// One command, from stdin or the window's keys.
    private static func run(_ command: CallCommand, driver: CallDriver, session: ParticipantSession) throws(CommandLineProblem) {
        switch command {
        case .mute: driver.setAudioMuted(true)
        case .unmute: driver.setAudioMuted(false)
        case .mutePeer(let who): try driver.setLocallyMuted(who, true)
        case .unmutePeer(let who): try driver.setLocallyMuted(who, false)
        case .camera(let on): try driver.setCamera(on: on)
        case .switchCamera(let path): try driver.switchCamera(to: path)
        case .hideVideo(let who): try driver.setVideoHidden(who, true)
        case .showVideo(let who): try driver.setVideoHidden(who, false)
        case .say(let text): try driver.say(text)
        case .play(let path):
            do {
                driver.audio?.play(try WAVFile.read(path: path))
            } catch {
                throw CommandLineProblem(message: "play: \(error)")
            }
        case .leave: session.leave(reason: .command)
        case .admit(let knock): if !session.answer(knock, admit: true) { throw CommandLineProblem(message: "not connected to the rendezvous right now: try again in a moment") }
        case .deny(let knock): if !session.answer(knock, admit: false) { throw CommandLineProblem(message: "not connected to the rendezvous right now: try again in a moment") }
        }
    }

    /// A command line (stdin's, or the screen's); a bad one is reported and the call goes on.
    private static func runLine(_ line: String, driver: CallDriver, session: ParticipantSession, reporter: EventReporter) {
        do throws(CommandLineProblem) {
            guard let command = try CallCommand.parse(line) else { return }
            try run(command, driver: driver, session: session)
        } catch {
            reporter.emit(.error(.badCommand(error.message)))
        }
    }

    /// Commands on stdin, one a line.
    private static func commandReader(loop: EventLoop, driver: CallDriver, session: ParticipantSession, reporter: EventReporter) -> LineReader {
        let commands = LineReader(loop: loop)
        commands.onLine = { [weak session] line in
            if let session { runLine(line, driver: driver, session: session, reporter: reporter) }
        }
        commands.onTooLong = {
            let message = "a command line is longer than \(LineReader.maxLineBytes / 1024) KiB: it was ignored"
            reporter.emit(.error(.badCommand(message)))
        }
        return commands
    }
}
