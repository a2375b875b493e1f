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
        var terminalView: Bool
        /// False for `conf host`: it stays in its room whoever fails to connect.
        var leavesWhenNobodyConnects = true
    }

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
        var terminalView = false
        switch context.setting("video-view") {
        case nil, "none": break
        case "terminal":
            guard !context.json, terminalSize() != nil else {
                throw context.usage("--video-view terminal needs stdout to be a terminal (and no --json)")
            }
            terminalView = true
        case let other?: throw context.usage("--video-view '\(other)': use terminal or none")
        }
        // Every option is valid: now look for the devices asked for, before the room is made.
        try video.checkDevice()
        try audio.createRecordDirectory()
        try audio.connectSoundServer()
        return Options(iceServers: servers, connectTimeout: timeout, say: say, relayOnly: relayOnly, trust: try context.caFile(), audio: audio,
                       startMuted: context.invocation.flag("muted"), playAtStart: play, stats: context.invocation.flag("stats"), video: video,
                       terminalView: terminalView)
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
                (driver.audio, driver.video) = (media.audio, media.video)
                driver.openCamera = CallMedia.cameraOpener(resolution: joined.resolution, loop: loop)
            } catch {
                session?.leave(failing: error)
                return
            }
            if let sound = options.playAtStart { driver.audio?.play(sound) }
            driver.engine.configuration.sendsAudio = driver.audio?.sends ?? false
            driver.engine.configuration.sendsVideo = driver.video?.sends ?? false
            driver.joined(joined)
            if options.terminalView { driver.startTerminalView(TerminalView()) }
            if options.startMuted { driver.setAudioMuted(true) }
        }
        driver.commands = commandReader(loop: loop, driver: driver, session: session, reporter: reporter)
        session.onLeaving = { driver.feed(.leave) }
        driver.onNetworkChanged = { [weak session] in session?.networkChanged() }
        session.onSignalPathConfirmed = { driver.feed(.networkChanged) }
        session.connectedPeers = { driver.engine.connectedPeers }
        session.onPeerJoined = { driver.feed(.peerJoined($0)) }
        session.onPeerLeft = { driver.peerLeft($0) }
        session.onSignal = { driver.feed(.signal(from: $0, $1)) }
        return driver
    }

    /// Commands on stdin, one a line; a bad one is reported and the call goes on.
    private static func commandReader(loop: EventLoop, driver: CallDriver, session: ParticipantSession, reporter: EventReporter) -> LineReader {
        let commands = LineReader(loop: loop)
        commands.onLine = { [weak session] line in
            do throws(CommandLineProblem) {
                switch try CallCommand.parse(line) {
                case nil: break
                case .mute?: driver.setAudioMuted(true)
                case .unmute?: driver.setAudioMuted(false)
                case .mutePeer(let who)?: try driver.setLocallyMuted(who, true)
                case .unmutePeer(let who)?: try driver.setLocallyMuted(who, false)
                case .camera(let on)?: try driver.setCamera(on: on)
                case .switchCamera(let path)?: try driver.switchCamera(to: path)
                case .hideVideo(let who)?: try driver.setVideoHidden(who, true)
                case .showVideo(let who)?: try driver.setVideoHidden(who, false)
                case .say(let text)?: try driver.say(text)
                case .play(let path)?:
                    do {
                        driver.audio?.play(try WAVFile.read(path: path))
                    } catch {
                        throw CommandLineProblem(message: "play: \(error)")
                    }
                case .leave?: session?.leave(reason: .command)
                case .admit(let knock)?: if session?.answer(knock, admit: true) == false { throw CommandLineProblem(message: "not connected to the rendezvous right now: try again in a moment") }
                case .deny(let knock)?: if session?.answer(knock, admit: false) == false { throw CommandLineProblem(message: "not connected to the rendezvous right now: try again in a moment") }
                }
            } catch {
                reporter.emit(.error(.badCommand(error.message)))
            }
        }
        commands.onTooLong = {
            let message = "a command line is longer than \(LineReader.maxLineBytes / 1024) KiB: it was ignored"
            reporter.emit(.error(.badCommand(message)))
        }
        return commands
    }
}
