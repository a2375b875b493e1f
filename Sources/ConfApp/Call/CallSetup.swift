import ConfCall
import ConfCore
import ConfCrypto
import ConfIO
import ConfMedia
import ConfWire
#if canImport(Glibc)
import Glibc
#endif

/// Builds the peer connections for a participant session from the command line: ICE servers,
/// the DTLS certificate, the connect timeout; wires the room's events into a `CallController`.
enum CallSetup {
    struct Options {
        var iceServers: [IceServerAddress]
        var connectTimeout: Duration
        var say: [String]
        var relayOnly: Bool
        var audio: AudioSettings
        var startMuted: Bool
        var playAtStart: [Int16]?
        var stats: Bool
        var video: VideoPipeline.Settings
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
            // USER:PASS@HOST:PORT, with ?transport=tcp for a server reached over TCP.
            let overTCP = option.hasSuffix("?transport=tcp")
            let text = overTCP ? String(option.dropLast("?transport=tcp".count)) : option
            guard let at = text.lastIndex(of: "@"), let colon = text[..<at].firstIndex(of: ":"),
                  case .success(let endpoint) = HostPort.parse(String(text[text.index(after: at)...]), defaultHost: ""), endpoint.port != 0
            else { throw context.usage("--turn '\(option)': give USER:PASS@HOST:PORT, or USER:PASS@HOST:PORT?transport=tcp") }
            var server = try resolve(endpoint, credentials: (String(text[..<colon]), String(text[text.index(after: colon)..<at])), option: "--turn")
            server.overTCP = overTCP
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
        var video = VideoPipeline.Settings()
        video.enabled = !context.invocation.flag("no-video")
        switch context.setting("video-source") {
        case nil, "none": video.source = .none
        case "pattern": video.source = .pattern
        case let text? where text.hasPrefix("v4l2:") && text.count > 5: video.source = .camera(String(text.dropFirst(5)))
        case let other?: throw context.usage("--video-source '\(other)': use v4l2:/dev/videoN, pattern or none")
        }
        if let text = context.setting("video-bitrate") {
            guard let kbps = Int(text), (50...20_000).contains(kbps) else {
                throw context.usage("--video-bitrate '\(text)': give kilobits per second from 50 to 20000")
            }
            video.bitrateKbps = kbps
        }
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
        if case .camera(let path) = video.source, video.enabled { try checkCamera(path) }
        try audio.createRecordDirectory()
        try audio.connectSoundServer()
        return Options(iceServers: servers, connectTimeout: timeout, say: say, relayOnly: relayOnly, audio: audio,
                       startMuted: context.invocation.flag("muted"), playAtStart: play, stats: context.invocation.flag("stats"), video: video,
                       terminalView: terminalView)
    }

    /// A missing camera is found before the room is created (the pipeline opens it once joined).
    static func checkCamera(_ path: String) throws(CommandFailure) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw CommandFailure(.noAudioDevice, code: "no-camera",
                                 "--video-source v4l2:\(path): \(String(cString: strerror(errno))) — check the device with v4l2-ctl --list-devices")
        }
        guard info.st_mode & S_IFMT == S_IFCHR else {
            throw CommandFailure(.noAudioDevice, code: "no-camera",
                                 "--video-source v4l2:\(path): not a device — give a camera like /dev/video0 (v4l2-ctl --list-devices)")
        }
    }

    static func resolve(_ endpoint: HostPort, credentials: (String, String)?, option: String) throws(CommandFailure) -> IceServerAddress {
        guard let ip = HostResolver.ipv4(endpoint.host) else {
            throw CommandFailure(.usage, code: "usage", "\(option) \(endpoint): cannot resolve '\(endpoint.host)' to an IPv4 address")
        }
        return IceServerAddress(host: ip, port: endpoint.port, credentials: credentials)
    }

    /// The rendezvous's `ice_servers` ("stun:host:port", "turn:host:port?transport=udp"), resolved;
    /// unusable entries are skipped.
    static func servers(from iceServers: [IceServer]) -> [IceServerAddress] {
        iceServers.flatMap { server in
            server.urls.compactMap { url -> IceServerAddress? in
                let isTURN = url.hasPrefix("turn:")
                guard isTURN || url.hasPrefix("stun:") else { return nil }
                let rest = url.dropFirst(5).prefix { $0 != "?" }
                guard case .success(let endpoint) = HostPort.parse(String(rest), defaultHost: ""),
                      let ip = HostResolver.ipv4(endpoint.host) else { return nil }
                let port = endpoint.port == HostPort.defaultPort && !rest.contains(":") ? 3478 : endpoint.port
                if isTURN {
                    guard let user = server.username, let pass = server.credential else { return nil }
                    return IceServerAddress(host: ip, port: port, credentials: (user, pass), overTCP: url.hasSuffix("?transport=tcp"))
                }
                return IceServerAddress(host: ip, port: port)
            }
        }
    }

    /// The inverse of `servers(from:)`: our ICE servers as the rendezvous hands them out.
    static func iceServers(_ addresses: [IceServerAddress]) -> [IceServer] {
        addresses.map { server in
            let url = "\(server.credentials == nil ? "stun" : "turn"):\(HostPort(host: server.host, port: server.port))"
                + (server.overTCP ? "?transport=tcp" : "")
            return IceServer(urls: [url], username: server.credentials?.username, credential: server.credentials?.password)
        }
    }

    /// Attaches peer connections to `session`.
    static func attach(to session: ParticipantSession, loop: EventLoop, reporter: EventReporter, options: Options)
        throws(CommandFailure) -> CallDriver
    {
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
        let driver = CallDriver(
            loop: loop, reporter: reporter, clock: SystemClock(), random: KernelRandom(), security: CertificateSecurity(certificate: certificate),
            configuration: configuration, settings: .init(iceServers: options.iceServers, relayOnly: options.relayOnly),
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
            let offered = servers(from: joined.iceServers).filter { !options.iceServers.contains($0) }
            if options.relayOnly && !(options.iceServers + offered).contains(where: { $0.credentials != nil }) {
                session?.leave(failing: CommandFailure(.usage, code: "usage",
                    "--relay-only needs a TURN server, and neither --turn nor the rendezvous gave one: add --turn USER:PASS@HOST:PORT"))
                return
            }
            driver.settings.iceServers += offered
            let publishes = joined.role == .publisher
            driver.engine.configuration.sendsAudio = publishes && options.audio.enabled
            driver.engine.configuration.sendsVideo = publishes && options.video.enabled && options.video.source != .none
            do throws(CommandFailure) {
                let audio = try AudioPipeline(settings: options.audio, sends: publishes, reporter: reporter)
                if let sound = options.playAtStart { audio.play(sound) }
                driver.audio = audio
                driver.video = try VideoPipeline(settings: options.video, sends: publishes, resolution: joined.resolution, loop: loop, reporter: reporter)
                if let directory = options.audio.recordDirectory {
                    let recordings = Recordings(directory: directory, videoSize: joined.resolution.size, reporter: reporter)
                    driver.recordings = recordings
                    audio.recordings = recordings
                    driver.video?.recordings = recordings
                }
            } catch {
                session?.leave(failing: error)
                return
            }
            driver.joined(joined)
            if options.terminalView { driver.startTerminalView(TerminalView()) }
            if options.startMuted { driver.setAudioMuted(true) }
        }
        driver.commands = commandReader(loop: loop, driver: driver, session: session, reporter: reporter)
        session.onLeaving = { driver.feed(.leave) }
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
