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

/// Reads a participant's call options from the command line and checks every one (`CallSetup`
/// builds the call from them once the room is joined).
extension CallOptions {
    static func parse(_ context: CommandContext) throws(CommandFailure) -> CallOptions {
        let servers = try iceServers(context)
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
        let portMapping = try context.portMapping()
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
        var options = CallOptions(audio: audio, video: video, name: try context.participantName())
        (options.iceServers, options.connectTimeout, options.say, options.relayOnly) = (servers, timeout, say, relayOnly)
        (options.trust, options.startMuted, options.playAtStart) = (try context.caFile(), context.invocation.flag("muted"), play)
        (options.stats, options.view, options.screen) = (context.invocation.flag("stats"), view, screen)
        options.viewIsAuto = (context.setting("video-view") ?? "auto") == "auto"
        options.portMapping = portMapping
        return options
    }

    /// `--stun` and `--turn`, resolved: STUN servers first, then TURN servers.
    static func iceServers(_ context: CommandContext) throws(CommandFailure) -> [IceServerAddress] {
        var servers: [IceServerAddress] = []
        for text in context.settings("stun") {
            guard let endpoint = HostPort.server(text, defaultPort: HostPort.stunPort) else {
                throw context.usage("\(context.origin("stun")) '\(text)': give HOST:PORT, like 192.0.2.1:3478")
            }
            servers.append(try resolve(endpoint, credentials: nil, option: context.origin("stun")))
        }
        for option in context.settings("turn") {
            guard let turn = TURNOption(option) else { throw context.usage("\(context.origin("turn")) '\(option)': \(TURNOption.form)") }
            var server = try resolve(turn.endpoint, credentials: (turn.username, turn.password), option: context.origin("turn"))
            server.overTCP = turn.transport != .udp
            server.tlsServerName = turn.transport == .tls ? turn.endpoint.host : nil
            servers.append(server)
        }
        return servers
    }

    private static func resolve(_ endpoint: HostPort, credentials: (String, String)?, option: String) throws(CommandFailure) -> IceServerAddress {
        guard let ip = HostResolver.address(endpoint.host) else {
            throw CommandFailure(.usage, code: "usage", "\(option) \(endpoint): cannot resolve '\(endpoint.host)' to an IP address")
        }
        return IceServerAddress(host: ip, port: endpoint.port, credentials: credentials)
    }
}
