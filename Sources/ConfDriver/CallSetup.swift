import ConfCall
import ConfCore
import ConfCrypto
import ConfIO
import ConfMedia
import ConfWire

/// Builds the peer connections for a participant session from its options: the DTLS
/// certificate, the engine's configuration; wires the room's events into a `CallDriver`, and
/// opens the media, the views and the controls once the room is joined.
public enum CallSetup {
    /// Said when the call screen was asked for and the terminal could not be taken.
    static let noScreenHint = TerminalText(trusted: "conf: cannot take the terminal for the call screen: line commands on stdin instead")
    static let lineModeHint = TerminalText(trusted: "conf: type say and a message to chat, leave (or Ctrl-C) to leave; "
        + "mute, camera off and the other commands are in man conf, CALL COMMANDS")

    /// Attaches peer connections to `session`.
    public static func attach(to session: ParticipantSession, loop: EventLoop, reporter: EventReporter, options: CallOptions)
        throws(CommandFailure) -> CallDriver
    {
        SRTPSession.prepareLibrary()  // ~75 ms, off the event loop while we join
        let certificate: DTLSCertificate
        do {
            certificate = try DTLSCertificate()
        } catch {
            throw CommandFailure(.failure, code: "crypto", "cannot make the DTLS certificate: \(error)")
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
            configuration: configuration, settings: .init(iceServers: options.iceServers, relayOnly: options.relayOnly, trust: options.trust,
                            portMapping: options.portMapping),
            sendSignal: { [weak session] peer, payload in session?.sendSignal(to: peer, payload) },
            onCallFailed: { [weak session] noPath in
                let advice = noPath.map { cause in
                    cause == .unknown
                        ? "no network path: UDP to the others seems blocked here or there (a firewall, or NATs that need a relay) — try "
                            + "--turn USER:PASS@HOST:PORT?transport=tcp with a TURN server both sides can reach over TCP, or a network that lets UDP through"
                        : cause.words
                } ?? "behind a strict NAT or firewall? try --stun or --turn"
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
            // Said once in the room: a rendezvous that cannot be reached is the error to read first.
            if let missing = options.audio.missingDevices {
                reporter.emit(.devicesMissing(missing.devices, reason: missing.reason))
            }
            do throws(CommandFailure) {
                let media = try CallMedia.open(audio: options.audio, video: options.video, sends: publishes, resolution: joined.resolution,
                                               loop: loop, reporter: reporter)
                driver.devices.use(media, openCamera: CallMedia.cameraOpener(resolution: joined.resolution, loop: loop))
            } catch {
                session?.leave(failing: error)
                return
            }
            if let sound = options.playAtStart { driver.audio?.play(sound) }
            driver.engine.configuration.sendsAudio = driver.audio?.sends ?? false
            driver.engine.configuration.sendsVideo = driver.video?.sends ?? false
            driver.engine.configuration.smallVideo = driver.video?.makesSmallEncoding ?? false
            driver.engine.configuration.fullVideoFloorKbps = driver.video?.fullPictureSize.map {
                VideoEncoding.fullFloorKbps(width: $0.width, height: $0.height)
            }
            driver.joined(joined)
            if options.screen, let session, RawTerminal.available {
                let showsVideo = options.view == .terminal || (options.viewIsAuto && options.view == .none && options.video.enabled)
                let open = { [weak session] in
                    guard let session else { return }
                    guard let terminal = RawTerminal(loop: loop) else {
                        reporter.note(Self.noScreenHint)
                        return driver.controls.readCommands(for: session)
                    }
                    driver.controls.startScreen(on: terminal, for: session, joined: joined, name: options.name, showsVideo: showsVideo)
                }
                if joined.peers.isEmpty {
                    // Alone (the host, at first): the invitation printed above stays readable and
                    // copyable on the normal screen until someone comes.
                    reporter.note("Waiting for others. The call screen opens when someone joins; Enter opens it now.")
                    driver.controls.openScreenLater(open)
                } else {
                    open()
                }
            } else {
                if options.view == .terminal { driver.views.startTerminalView(TerminalView()) }
                if options.screen { reporter.note(Self.noScreenHint) }
                // Someone typing at the line mode is told once how to chat and leave.
                if !reporter.json, Console.isTerminal(0) { reporter.note(Self.lineModeHint) }
            }
            if options.view == .window, let session {
                driver.controls.openWindow(for: session, title: "conf — \(joined.roomName)")
            }
            if options.startMuted { driver.controls.setAudioMuted(true) }
        }
        if !options.screen { driver.controls.readCommands(for: session) }
        session.onLeaving = { driver.feed(.leave) }
        driver.onNetworkChanged = { [weak session] in session?.networkChanged() }
        session.onSignalPathConfirmed = { driver.feed(.networkChanged) }
        session.connectedPeers = { driver.engine.connectedPeers }
        session.onPeerJoined = {
            driver.feed(.peerJoined($0))
            driver.controls.openWaitingScreen()
        }
        session.onPeerLeft = { driver.peerLeft($0) }
        driver.onPeerSaidGoodbye = { [weak session] in session?.peerSaidGoodbye($0) }
        session.onSignal = { driver.feed(.signal(from: $0, $1)) }
        return driver
    }
}
