import ConfCLI
import ConfDriver
import ConfWire

/// conf's command tree: the single source of its parser, `--help`, completions and man page.
public enum ConfProgram {
    public static let version = "0.1.0"

    static let resolutions = Resolution.allCases.map(\.rawValue)

    static let server = OptionSpec(
        "server", short: "s", value: "ADDR",
        help: "the rendezvous to use: HOST:PORT, or a ws://, wss://, http:// or https:// URL (the secure forms use TLS)",
        environment: "CONF_SERVER", configurable: true)
    static let me = OptionSpec(
        "as", short: "a", value: "NAME", help: "your name as others see it (1 to 64 characters)",
        environment: "CONF_NAME", configurable: true, default: "$USER")
    static let ca = OptionSpec(
        "ca", value: "FILE", help: "trust the certificates in this PEM file (a private CA or a self-signed certificate) for a wss:// rendezvous and TURN over TLS",
        completion: .file, environment: "CONF_CA", configurable: true)
    static let fingerprint = OptionSpec(
        "fingerprint", value: "FP",
        help: "trust the rendezvous's TLS certificate with this fingerprint, and no other (no CA needed): what conf host prints in its join line; the connection then uses TLS")
    static let noTLS = OptionSpec(
        "no-tls", help: "serve the built-in rendezvous over plain ws:// (the pin then crosses the network in clear): for tests and trusted LANs")
    static let duration = OptionSpec(
        "duration", short: "d", value: "SECONDS", help: "leave the call after this many seconds")
    static let stun = OptionSpec(
        "stun", value: "HOST:PORT", help: "a STUN server, to find your address as seen from outside a NAT (port 3478 if none is given); the rendezvous hands out itself when it has none to give. CONF_STUN or the config file's stun key: several separated by spaces",
        repeatable: true, environment: "CONF_STUN", configurable: true)
    static let turn = OptionSpec(
        "turn", value: "USER:PASS@HOST:PORT", help: "a TURN server to relay through when no direct path works; add ?transport=tcp to reach it over TCP where UDP is blocked, ?transport=tls over TLS; without :PORT, 3478 (5349 over TLS). CONF_TURN or the config file's turn key: several separated by spaces",
        repeatable: true, environment: "CONF_TURN", configurable: true)
    static let portMapping = OptionSpec(
        "port-mapping", value: "on|off",
        help: "ask the router to forward ports to this machine (UPnP-IGD, NAT-PMP, PCP): conf host's built-in rendezvous (TCP and UDP), and each call's media; the mappings are removed when conf leaves",
        completion: .choices(["on", "off"]), environment: "CONF_PORT_MAPPING", configurable: true, default: "on")
    static let relayOnly = OptionSpec(
        "relay-only", help: "connect only through the --turn server, so that peers never learn your addresses")
    static let connectTimeout = OptionSpec(
        "connect-timeout", value: "SECONDS", help: "exit with status 8 when others are in the room but none connects within this time",
        default: "15")
    static let videoSource = OptionSpec(
        "video-source", value: "SOURCE",
        help: "what you send as video, at the room's resolution: auto (the first camera conf can read, as conf devices marks it; no video when there is none), v4l2:/dev/videoN (a camera: YUYV, NV12, YU12 or MJPEG), pattern (a moving test picture), pattern:noisy (the same under grain that takes the whole bitrate), pattern:clock (the time each picture was made, drawn in cells: for measuring delay), file:PATH.y4m (a YUV4MPEG2 clip, 4:2:0, looped, at its frame rate, in its own shape) or none",
        configurable: true, default: "auto")
    static let videoView = OptionSpec(
        "video-view", value: "VIEW",
        help: "show the call's video: window (a window with everyone's picture, names and marks; f full screen, m mute, v camera, q leave), "
            + "terminal (24-bit colour half blocks, a grid of participants), auto (the window when a display is available, else nothing) or none",
        completion: .choices(["auto", "window", "terminal", "none"]), configurable: true, default: "auto")
    static let ui = OptionSpec(
        "ui", value: "UI",
        help: "how the call is shown: screen (a full-screen view: roster, chat, input line, single keys; ? lists them), lines (event lines "
            + "and line commands on stdin, as a script reads them) or auto (screen when stdin and stdout are a terminal and --json is off)",
        completion: .choices(["auto", "screen", "lines"]), configurable: true, default: "auto")
    static let videoBitrate = OptionSpec("video-bitrate", value: "KBPS", help: "the most VP8 is given, in kilobits per second: it follows the best link's estimate (links that share your uplink count as one, at the least of theirs) up to this; links under what the full picture needs, at most half of this, get a half-size one", default: "600")
    static let noAudio = OptionSpec("no-audio", help: "send and receive no audio")
    static let noVideo = OptionSpec("no-video", help: "send and receive no video")
    static let noSounds = OptionSpec(
        "no-sounds", help: "play no sound when someone joins, leaves or writes (they are played to you alone, never sent; off with --json)")
    static let say = OptionSpec(
        "say", value: "TEXT", help: "send this chat message to each peer once connected to it (peer to peer, encrypted)", repeatable: true)
    static let audioSource = OptionSpec(
        "audio-source", value: "SOURCE", help: "what you send: pulse[:NAME] (a PulseAudio source), tone:HZ, silence or file:PATH.wav",
        environment: "CONF_AUDIO_SOURCE", configurable: true, default: "pulse")
    static let audioSink = OptionSpec(
        "audio-sink", value: "SINK", help: "where others' audio plays: pulse[:NAME] (one stream per participant, named after them) or none",
        environment: "CONF_AUDIO_SINK", configurable: true, default: "pulse")
    static let mic = OptionSpec("mic", value: "SOURCE", help: "the PulseAudio source to capture (see conf devices); same as --audio-source pulse:SOURCE",
                                configurable: true)
    static let speaker = OptionSpec("speaker", value: "SINK", help: "the PulseAudio sink to play to (see conf devices); same as --audio-sink pulse:SINK",
                                    configurable: true)
    static let record = OptionSpec("record", value: "DIR", help: "record what you receive from each peer: DIR/NAME.wav (48 kHz mono) and DIR/NAME.ivf (VP8), one pair per participant per call; a taken name gets a number (NAME-2), nothing is overwritten; DIR is created if needed",
                                   completion: .directory)
    static let stats = OptionSpec("stats", help: "report audio-stats and link-stats every 2 seconds: per peer received bitrate, loss, jitter, buffer delay, concealment; per link the send estimate, sent rate, round trip, loss, queue delay and video layers")
    static let muted = OptionSpec("muted", help: "start with the microphone muted (the `unmute` command turns it on)")
    static let play = OptionSpec("play", value: "FILE", help: "mix this WAV file into what you send, once, at the start", completion: .file)
    static let audioBitrate = OptionSpec("audio-bitrate", value: "BPS", help: "the most Opus is given, in bits per second: it follows the worst link between 16000 and this (at most 64000)", default: "32000")
    static let callOptions = [say, audioSource, audioSink, mic, speaker, muted, play, record, audioBitrate, stats, ui, videoSource, videoBitrate, videoView, stun, turn, relayOnly, portMapping, connectTimeout, noAudio, noVideo, noSounds]
    static let json = OptionSpec(
        "json", short: "j", help: "print events as JSON on stdout, one object a line; human-readable text goes to stderr")

    static let commandsHelp = "During the call, commands on stdin, one a line: mute, unmute, mute-peer WHO, unmute-peer WHO (stop playing one participant, here only; WHO is a name or an id, like ann or p2), camera off, camera on (stop and resume sending video), camera next, camera /dev/videoN (send from another camera), hide WHO, show WHO (stop and resume getting one participant's video), say TEXT (chat to everyone in the room; a peer whose link is still coming up gets it when it is up; typed before anyone is connected, it is kept and sent to the first peer who connects), play FILE.wav, leave."

    static let host = CommandSpec(
        "host", abstract: "open a room, print how others join it, and join it",
        discussion: [
            "Without --server (or CONF_SERVER, or the config file) the rendezvous runs inside this process on --listen, over TLS (--no-tls for plain ws://), and the printed join command names its certificate (--fingerprint) and an address others can reach: the router's external one when the router forwarded the port (see CALLING ACROSS THE INTERNET in the man page). It hands the host's --stun and --turn servers to everyone who joins, and itself as the STUN server when there is no --stun. When the host leaves nobody new can join; the others keep talking over their direct links.",
            "With --server, the room is created on that standing rendezvous and outlives the host.",
            commandsHelp,
        ],
        options: [
            OptionSpec("name", short: "n", value: "NAME", help: "the room's name (3 to 64 characters)", default: "conf"),
            OptionSpec("resolution", short: "r", value: "RES", help: "the video size everyone sends",
                       completion: .choices(resolutions), configurable: true, default: Resolution.default.rawValue),
            server,
            OptionSpec("listen", short: "l", value: "ADDR",
                       help: "where the embedded rendezvous listens, HOST:PORT (port 0 picks a free one)",
                       configurable: true, default: "[::]:7373"),
            noTLS, ca, fingerprint, me, duration] + callOptions + [json,
        ],
        examples: [
            Example("conf host --name standup", "Open a room on a rendezvous inside this process and join it."),
            Example("conf host --server rv.example.org:7373 --json", "Open a room on a standing rendezvous; events as JSON."),
        ])

    static let join = CommandSpec(
        "join", abstract: "join a room with its id and a pin",
        discussion: ["The room's pin makes you a publisher; its listen-only pin makes you a listener, who receives but does not send.",
                     commandsHelp],
        arguments: [
            ArgumentSpec("ROOM", help: "the room id, like 4821-7734"),
            ArgumentSpec("PIN", help: "the room's pin or listen-only pin: six digits"),
        ],
        options: [server, ca, fingerprint, me, duration] + callOptions + [json],
        examples: [
            Example("conf join 4821-7734 381204 --server 192.0.2.5:7373", "Join the room that conf host printed."),
            Example("conf join 4821-7734 381204 --duration 30 --json", "Join for 30 seconds, printing events as JSON (a script)."),
        ])

    static let rendezvous = CommandSpec(
        "rendezvous", abstract: "run a standing rendezvous for many rooms",
        discussion: [
            "Serves POST /v1/rooms, the WebSocket /v1/ws and GET /v1/metrics (docs/PROTOCOL.md). It introduces participants and relays their negotiation; media never passes through it. The first line on stdout is the address it listens on.",
            "It runs a worker (an event loop) per core, each holding the rooms whose id it owns with their connections; several instances split the rooms by id behind a load balancer with --instance (docs/DEPLOY.md).",
        ],
        options: [
            OptionSpec("listen", short: "l", value: "ADDR", help: "where to listen, HOST:PORT (port 0 picks a free one)",
                       configurable: true, default: "[::]:7373"),
            OptionSpec("tls-cert", value: "FILE", help: "serve HTTPS and WSS with this PEM certificate (needs --tls-key)", completion: .file),
            OptionSpec("tls-key", value: "FILE", help: "the PEM private key of --tls-cert", completion: .file),
            OptionSpec("stun", value: "HOST:PORT", help: "a STUN server to hand to participants (port 3478 if none is given); without one, the rendezvous hands out itself: it answers STUN on UDP at its own port, at the address each participant reached it by", repeatable: true),
            OptionSpec("turn", value: "USER:PASS@HOST:PORT", help: "a TURN server to hand to participants (?transport=tcp or ?transport=tls to reach it over TCP or TLS)",
                       repeatable: true),
            OptionSpec("room-idle", value: "SECONDS", help: "forget a room after it has been empty this long", default: "600"),
            OptionSpec("rooms-per-minute", value: "N", help: "rooms one address (an IPv6 /64) may create a minute; one /24 or /48 four times as many", default: "30"),
            OptionSpec("max-rooms", value: "N", help: "rooms held at once (one address may hold 1 %, one /24 or /48 10 %)", default: "20000"),
            OptionSpec("knock-timeout", value: "SECONDS", help: "how long a join on a room locked by wrong pins waits for a publisher to admit it",
                       default: "60"),
            OptionSpec("resume-grace", value: "SECONDS", help: "how long a participant whose connection dropped keeps its seat before the others are told it left",
                       default: "30"),
            OptionSpec("state-dir", value: "DIR", help: "where the secret that signs resume tokens and derives pins is kept, so a restart keeps rooms resumable",
                       completion: .directory, default: "$XDG_STATE_HOME/conf"),
            OptionSpec("max-connections-per-client", value: "N",
                       help: "connections one client (an IPv4 address, an IPv6 /64) may hold open; more are refused with 429", default: "64"),
            OptionSpec("instance", value: "K/N",
                       help: "be instance K (from 0) of N behind one load balancer: mint room ids that start with K (two digits past 10 instances) "
                           + "and refuse the others' with wrong-instance (docs/DEPLOY.md)"),
            OptionSpec("workers", value: "N",
                       help: "event loops (threads) sharing the port, each holding the rooms whose id it owns and their connections; "
                           + "one when serving TLS", default: "the number of cores"),
            OptionSpec("processes", value: "P",
                       help: "processes sharing the port, each with --workers workers, for more connections than one process has descriptors for",
                       default: "1"),
            OptionSpec("trusted-proxy", value: "ADDR",
                       help: "a load balancer's address: its connections are not capped per client, and the last address of its X-Forwarded-For "
                           + "is the client that rate limits and room quotas count", repeatable: true),
            OptionSpec("quiet", short: "q", help: "log only errors, not joins and leaves"),
        ],
        examples: [Example("conf rendezvous --listen :7373", "A standing rendezvous on every interface, IPv6 and IPv4."),
                   Example("conf rendezvous --listen 10.0.0.2:7373 --instance 1/3", "The second of three instances behind a load balancer (deploy/haproxy.cfg).")])

    static let completions = CommandSpec(
        "completions", abstract: "print the completion script for a shell",
        arguments: [ArgumentSpec("SHELL", help: "bash, zsh or fish", completion: .choices(["bash", "zsh", "fish"]))],
        examples: [
            Example("conf completions bash > ~/.local/share/bash-completion/completions/conf", "Install bash completion for your user."),
            Example("conf completions zsh > ~/.zfunc/_conf", "Install zsh completion (with ~/.zfunc in fpath)."),
            Example("conf completions fish > ~/.config/fish/completions/conf.fish", "Install fish completion."),
        ])

    static let devices = CommandSpec(
        "devices", abstract: "list the PulseAudio sources and sinks usable with --mic and --speaker, and the cameras (the default marked)",
        options: [json],
        examples: [Example("conf devices --json", "Sources and sinks as JSON.")])

    static let help = CommandSpec(
        "help", abstract: "show help for a command",
        arguments: [ArgumentSpec("COMMAND", help: "the command to explain", completion: .subcommands, isOptional: true)])

    public static let program = Program(
        root: CommandSpec(
            "conf", abstract: "private audio/video calls for up to four people, peer to peer",
            subcommands: [host, join, rendezvous, devices, completions, help]),
        info: ProgramInfo(
            version: version,
            summary: "private audio/video calls for up to four people, peer to peer, from a terminal",
            description: [
                "conf puts up to four people in one call with no media server: every participant connects directly to every other. A small rendezvous hands out a room id, a pin and a listen-only pin, and relays the participants' negotiation messages; it never sees media.",
                "conf host opens a room (running the rendezvous inside itself unless told of a standing one) and prints the command others paste to join. conf join joins. Both run without a terminal too: --duration, --json and the exit status make them scriptable.",
                "In a terminal (stdin and stdout a terminal, no --json, no --ui lines) the call has a screen: a header, the roster with each link's quality, level meter and the words to compare, others' video when no window shows it, the chat pane and an input line. Keys: m microphone, v camera, Tab or the arrows select someone, x mute them here, h hide their video, c their words are compared, Enter chat (a line starting with / is any stdin command: /camera next, /mute-peer ann), PgUp and PgDn scroll the chat, ? the keys, q leave (asks once), Ctrl-L draw again. Pasted text goes into the input line, never acts as keys. Colours follow COLORTERM (24-bit where it says truecolor, else 256) and NO_COLOR (none). The terminal is given back on every way out: leaving, Ctrl-C, SIGINT, SIGTERM, SIGHUP, SIGQUIT, a crash.",
            ],
            exitCodes: ExitCode.allCases.map { ($0.rawValue, $0.meaning) },
            environment: [
                ("CONF_SERVER", "the rendezvous to use, as --server; the command line wins over it"),
                ("CONF_NAME", "your name in calls, as --as"),
                ("CONF_CA", "a PEM file of certificates to trust for a wss:// rendezvous, as --ca"),
                ("CONF_AUDIO_SOURCE, CONF_AUDIO_SINK", "defaults for --audio-source and --audio-sink"),
                ("CONF_STUN, CONF_TURN", "STUN and TURN servers, as --stun and --turn; several separated by spaces"),
                ("CONF_PORT_MAPPING", "on or off, as --port-mapping"),
                ("http_proxy, https_proxy, all_proxy, no_proxy", "the proxy to reach the rendezvous through (ws:// and wss://), and hosts reached directly, as curl reads them (HTTPS_PROXY, ALL_PROXY and NO_PROXY too; localhost, 127.0.0.0/8 and ::1 are always reached directly; socks5h:// is taken as socks5://). A wss:// rendezvous goes through a CONNECT tunnel, which any proxy allows; ws:// goes as an absolute-form request, which some refuse. Media and TURN never go through it: where UDP is blocked, give --turn with ?transport=tcp or tls"),
                ("PULSE_SERVER", "the PulseAudio server to use (read by libpulse)"),
                ("XDG_CONFIG_HOME", "where the config file is looked for (default ~/.config)"),
                ("NO_COLOR", "when set and not empty, no colour in output (the call screen's video is then drawn in characters)"),
                ("COLORTERM", "truecolor or 24bit: the call screen uses 24-bit colour, else the 256-colour palette"),
            ],
            files: [
                ("$XDG_CONFIG_HOME/conf/config", "optional settings, one 'key = value' a line, '#' starts a comment; keys are long option names: server, ca, as, resolution, listen, audio-source, audio-sink, mic, speaker, ui, video-source, video-view, stun, turn (several separated by spaces), port-mapping. Command-line options beat environment variables, which beat this file."),
                ("$XDG_STATE_HOME/conf/rendezvous-tls.pem", "the built-in rendezvous's TLS key and self-signed certificate (mode 0600), made by the first conf host: its fingerprint is what join lines name; remove it to make a new one"),
            ],
            events: [
                ("room", "room, pin, listen_pin, name, resolution, join_command, listen_join_command, browser_url, listen_browser_url", "conf host created the room; the commands join as a publisher and as a listener, and the links open the call page in a browser (the pin in the fragment; add &name=NAME to fill the name, &join=1 to join at once)"),
                ("reachability", "verdict, address, via, advice", "conf host with its built-in rendezvous: whether others on the internet reach it. verdict: reachable (a router forwards the port, or the address is public), closed (no router opened it: forward TCP and UDP PORT, or use --server) or carrier-grade-nat (the router has no public address: use --server); address: what the join command names; via: upnp, nat-pmp, pcp, public or none; advice: what to do, in words"),
                ("joined", "you, role, room, name, resolution, peers", "you are in the room; peers lists {id, name, role} of everyone already there"),
                ("peer-joined", "peer, name, role", "someone joined"),
                ("peer-left", "peer", "someone left or their connection dropped"),
                ("peer-connected", "peer, name, path, local, remote, rtt_ms, sas, srtp, setup_ms",
                 "a direct encrypted link to a peer is up (reported when DTLS is); path is host, srflx, prflx or relay; rtt_ms is the DTLS handshake's round trip (null if none was measured; RTCP's is in link-stats); sas is four words to compare with the peer aloud; setup_ms has ice, dtls and connected, in ms from the offer"),
                ("peer-disconnected", "peer, code, reason",
                 "the link to a peer ended; code is left, restarting, no-path, path-failed, connect-timeout, silence, negotiation-failed, dtls-failed or network-changed, reason says it in words; a failed link is set up again while the peer stays"),
                ("chat", "from, name, text", "a chat message from a peer, over the encrypted data channel"),
                ("listener-ignored", "peer, what", "a listen-only participant sent media or chat anyway; dropped (reported once per peer and kind)"),
                ("sent", "to, text", "your chat message went to that peer"),
                ("muted", "audio, video", "your own mute state changed (--muted, the mute and unmute commands)"),
                ("peer-muted", "peer, audio, video", "a peer muted or unmuted itself"),
                ("peer-muted-locally", "peer, muted", "you stopped or resumed playing a peer (mute-peer, unmute-peer)"),
                ("camera", "on", "your camera turned off (camera off: no video is sent) or on again"),
                ("camera-switched", "device, mode", "you send from another camera now (camera next), in this mode"),
                ("peer-video-muted", "peer", "that peer turned its camera off"),
                ("peer-video-unmuted", "peer", "that peer turned its camera on again"),
                ("peer-video-hidden", "peer, hidden", "you stopped or resumed getting that peer's video (hide, show); it stops sending it to you"),
                ("talking", "peer, talking", "someone (you included, by your own id) started or stopped talking"),
                ("talking-while-muted", "", "you started talking while muted: nobody hears it (at most every 15 s)"),
                ("audio-stats", "peers", "with --stats, every 2 s: per peer {peer, kbps, loss_percent, jitter_ms, buffer_ms, target_ms, concealed_ms, skipped_ms}"),
                ("link-stats", "links", "with --stats, every 2 s: per link {peer, estimate_kbps, sent_kbps, rtt_ms, loss_percent, queue_delay_ms, video_layers, video_encoding, audio_packet_ms, shared_kbps}: what congestion control sees of the path to that peer (rtt_ms 0 before measured; video_layers 0 while paused; video_encoding full, or small: half the width and height, for a link that cannot carry half the full one's frame rate or what the full picture needs; audio_packet_ms 20, or 60 while the link is weak and the peer plays such packets; shared_kbps, while this link shares our uplink with others (the links that get our video do, until one's packets are seen to wait alone), the one rate they all send at (the least of their estimates), else 0)"),
                ("video-paused", "peer, reason", "that peer stops getting your video: its link cannot carry even the small encoding's base layer (reason bandwidth); its audio goes on"),
                ("video-resumed", "peer", "that peer gets your video again, from a key frame"),
                ("devices", "sources, sinks, cameras", "conf devices: the sound server's sources and sinks, each {name, description, monitor, default}, and the cameras, each {path, name, default, modes: [{format, width, height, fps}]}"),
                ("devices-missing", "devices, reason", "no sound server: the call goes on without the default microphone or speaker"),
                ("device-lost", "device, peer", "a microphone, camera or speaker (peer: whose stream) went away; the call goes on without it"),
                ("record-error", "peer, path, error", "a --record file could not be written; that recording stopped, the call goes on"),
                ("knocking", "room, message", "the room is locked after too many wrong pins: your join waits for someone in the call to let you in"),
                ("knock", "knock, name, role", "someone with the right pin knocks on your locked room: answer with admit KNOCK or deny KNOCK on stdin"),
                ("knock-ended", "knock, outcome", "a knock was admitted, denied, withdrawn or expired (by anyone in the call)"),
                ("rendezvous-lost", "code, reason", "the connection to the rendezvous broke (code: closed, stopped-answering, closed-while-resuming, network-changed); the links stay up and conf reconnects"),
                ("rendezvous-back", "", "the seat in the room was taken back after rendezvous-lost"),
                ("rendezvous-closed", "reason", "no rendezvous from now on (host-left, resume-refused, no-resume); the call goes on with those connected"),
                ("left", "reason", "you left: duration, signal, command, host-left, nobody-left, or the code of the error that ended the call"),
                ("error", "code, message", "something failed; code is stable (wrong-pin, room-full, no-such-room, rate-limited, rendezvous-unreachable, bad-command, ...)"),
            ],
            sections: [("Calling across the internet", internetParagraphs)]))

    /// The man page's CALLING ACROSS THE INTERNET (the README says the same in short).
    static let internetParagraphs = [
        "conf host, with its built-in rendezvous, asks the home router to forward its port, TCP and UDP (7373 unless --listen says otherwise), by PCP, NAT-PMP and UPnP-IGD, and prints the router's external address in the join line. It says within a few seconds whether others can reach it (the reachability event): reachable (a router forwards the port, or the address is public), closed (no router answered, or it refused: forward TCP and UDP on that port to this machine by hand, or use a standing rendezvous with --server), or carrier-grade-nat (the router itself has no public address, as with many mobile and some fibre and cable providers: a forwarded port cannot help; use a standing rendezvous). The mappings are renewed while the call lasts and removed when conf host leaves, on SIGINT and SIGTERM too. --port-mapping off asks nothing of the router.",
        "Every rendezvous, standing or built in, also answers STUN on UDP at its own port number and hands itself out as the STUN server when it is given none (--stun): each participant learns its address outside its NAT from the server it already talks to, with no third party. With the router's forward for the host, and that address for everyone else, two homes behind ordinary NATs connect directly. Each call's media port is asked for too (on the address the default route leaves from, by PCP, NAT-PMP or UPnP-IGD) and offered to the others as a candidate, so that the host's media are reachable like its rendezvous, even from behind a NAT that no hole punching gets through.",
        "Some NATs give each destination its own port (symmetric NAT: some corporate, hotel and mobile networks); two such peers cannot reach each other directly, and the call needs a relay: a TURN server (coturn) that the rendezvous's operator hands out (conf rendezvous --turn, see docs/DEPLOY.md) or that each participant names with --turn (or CONF_TURN, or the config file). A link that found no path in two tries (a third of --connect-timeout each, at least 4 s) is tried a third time through the relay alone, on both sides; without a relay, the no-path error names what the candidates showed (both behind NATs, a NAT that changed the port) and the cure. Media through TURN stays encrypted end to end.",
        "The pin never crosses the network in clear: the built-in rendezvous serves TLS with a key and self-signed certificate it makes once and keeps in $XDG_STATE_HOME/conf/rendezvous-tls.pem, and the join line names the certificate with --fingerprint. conf join trusts that certificate and no other, without any CA, and refuses another with exit status 11 before sending anything. A standing rendezvous with a CA-signed certificate is reached as wss://HOST:PORT as before; --no-tls serves plain ws:// on trusted LANs and in tests.",
        "IPv6: with --listen [::]:PORT (the default) the rendezvous and the media also use this machine's global IPv6 addresses, which need no NAT (a firewall may still need opening); the join line names the IPv4 address first and lists the others.",
    ]
}
