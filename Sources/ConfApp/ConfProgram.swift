import ConfCall
import ConfCLI
import ConfDriver
import ConfScreen
import ConfWire

/// conf's command tree: the single source of its parser, `--help`, completions and man page.
public enum ConfProgram {
    public static let version = "0.1.0"

    static let resolutions = Resolution.allCases.map(\.rawValue)
    /// Where a rendezvous listens when --listen is not given: every interface, IPv6 and IPv4.
    static let defaultListen = "[::]:7373"

    static let server = OptionSpec(
        "server", short: "s", value: "ADDR",
        help: "the rendezvous to use: HOST:PORT (over TLS), or a wss://, https://, ws:// or http:// URL; only ws:// and http:// are plain, and then the pin crosses the network in clear",
        environment: "CONF_SERVER", configurable: true)
    static let me = OptionSpec(
        "as", short: "a", value: "NAME", help: "your name as others see it (1 to 64 characters)",
        environment: "CONF_NAME", configurable: true, default: "$USER, or guest without it")
    static let ca = OptionSpec(
        "ca", value: "FILE", help: "trust the certificates in this PEM file (a private CA or a self-signed certificate) for a wss:// rendezvous and TURN over TLS",
        completion: .file, environment: "CONF_CA", configurable: true)
    static let fingerprint = OptionSpec(
        "fingerprint", value: "FP",
        help: "trust the rendezvous's TLS certificate with this fingerprint, and no other (no CA needed): what conf host prints in its join line, and conf rendezvous for its users' config; the connection then uses TLS",
        environment: "CONF_FINGERPRINT", configurable: true)
    static let roomKey = OptionSpec(
        "room-key", value: "KEY",
        help: "the key a standing rendezvous asks before it makes a room (its --room-key-file): best kept in the config file, where other users cannot read it, rather than on the command line",
        environment: "CONF_ROOM_KEY", configurable: true)
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
    /// What `--connect-timeout` does: every link has that long to come up; only a join into a
    /// room where others already are can find nobody at all and exit 8.
    static func connectTimeout(exits: Bool) -> OptionSpec {
        let perLink = "a link to a peer that does not come up within this time is given up (peer-disconnected, connect-timeout) and tried again"
        return OptionSpec("connect-timeout", value: "SECONDS",
                          help: exits ? perLink + "; when others are in the room but none connects within it, conf exits with status 8" : perLink,
                          default: "15")
    }
    static let videoSource = OptionSpec(
        "video-source", value: "SOURCE",
        help: "what you send as video, at the room's resolution: auto (the first camera conf can read, as conf devices marks it; no video when there is none), v4l2:/dev/videoN (a camera: YUYV, NV12, YU12 or MJPEG), pattern (a moving test picture), pattern:noisy (the same under grain that takes the whole bitrate), pattern:clock (the time each picture was made, drawn in cells: for measuring delay), file:PATH.y4m (a YUV4MPEG2 clip, 4:2:0, looped, at its frame rate, in its own shape) or none",
        completion: .command("conf devices --names video-sources"), configurable: true, default: "auto")
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
        completion: .command("conf devices --names audio-sources"), environment: "CONF_AUDIO_SOURCE", configurable: true, default: "pulse")
    static let audioSink = OptionSpec(
        "audio-sink", value: "SINK", help: "where others' audio plays: pulse[:NAME] (one stream per participant, named after them) or none",
        completion: .command("conf devices --names audio-sinks"), environment: "CONF_AUDIO_SINK", configurable: true, default: "pulse")
    static let mic = OptionSpec("mic", value: "SOURCE", help: "the PulseAudio source to capture (see conf devices); same as --audio-source pulse:SOURCE",
                                completion: .command("conf devices --names microphones"), configurable: true)
    static let speaker = OptionSpec("speaker", value: "SINK", help: "the PulseAudio sink to play to (see conf devices); same as --audio-sink pulse:SINK",
                                    completion: .command("conf devices --names speakers"), configurable: true)
    static let record = OptionSpec("record", value: "DIR", help: "record what you receive from each peer: DIR/NAME.wav (48 kHz mono) and DIR/NAME.ivf (VP8), one pair per participant per call; a taken name gets a number (NAME-2), nothing is overwritten; DIR is created if needed",
                                   completion: .directory)
    static let stats = OptionSpec("stats", help: "report audio-stats and link-stats every 2 seconds: per peer received bitrate, loss, jitter, buffer delay, concealment; per link the send estimate, sent rate, round trip, loss, queue delay and video layers")
    static let muted = OptionSpec("muted", help: "start with the microphone muted (the `unmute` command turns it on)")
    static let play = OptionSpec("play", value: "FILE", help: "mix this WAV file into what you send, once, at the start", completion: .file)
    static let audioBitrate = OptionSpec("audio-bitrate", value: "BPS", help: "the most Opus is given, in bits per second: it follows the worst link between 16000 and this (at most 64000)", default: "32000")
    static func callOptions(joining: Bool) -> [OptionSpec] {
        [say, audioSource, audioSink, mic, speaker, muted, play, record, audioBitrate, stats, ui, videoSource, videoBitrate, videoView, stun, turn,
         relayOnly, portMapping, connectTimeout(exits: joining), noAudio, noVideo, noSounds]
    }
    static let json = OptionSpec(
        "json", short: "j", help: "print events as JSON on stdout, one object a line; human-readable text goes to stderr")

    static let commandsHelp = "During the call, commands on stdin, one a line (after / on the call screen): \(CallCommand.help). "
        + "The man page's CALL COMMANDS says what each does."

    static let host = CommandSpec(
        "host", abstract: "open a room, print how others join it, and join it",
        discussion: [
            "Without --server (or CONF_SERVER, or the config file) the rendezvous runs inside this process on --listen, over TLS (--no-tls for plain ws://), and the printed join command names its certificate (--fingerprint) and an address others can reach: the router's external one when the router forwarded the port (see CALLING ACROSS THE INTERNET in the man page). It hands the host's --stun and --turn servers to everyone who joins, and itself as the STUN server when there is no --stun. When the host leaves nobody new can join; the others keep talking over their direct links.",
            "With --server, the room is created on that standing rendezvous and outlives the host.",
            commandsHelp,
        ],
        options: [
            OptionSpec("name", short: "n", value: "NAME", help: "the room's name (3 to 64 characters)", default: "conf"),
            OptionSpec("resolution", short: "r", value: "RES", help: "the video size everyone sends: "
                       + Resolution.allCases.map { "\($0.rawValue) (\($0.size.width)x\($0.size.height))" }.joined(separator: ", "),
                       completion: .choices(resolutions), configurable: true, default: Resolution.default.rawValue),
            server,
            OptionSpec("listen", short: "l", value: "ADDR",
                       help: "where the embedded rendezvous listens, HOST:PORT (port 0 picks a free one)",
                       configurable: true, default: defaultListen),
            noTLS, certificate, acmeDirectory, acmeCA, domain, ca, fingerprint, roomKey, me, duration] + callOptions(joining: false) + [json,
        ],
        examples: [
            Example("conf host --name standup", "Open a room on a rendezvous inside this process and join it."),
            Example("conf host --server rv.example.org:7373 --json", "Open a room on a standing rendezvous; events as JSON."),
        ])

    static let join = CommandSpec(
        "join", abstract: "join a room with the link conf host printed, or its id and a pin",
        discussion: ["The link (https://HOST:PORT/#room=ID&pin=PIN&fp=FINGERPRINT) names the rendezvous, the room, the pin and the certificate to trust: nothing else is needed. Quote it in a shell (it holds '&').",
                     "The room's pin makes you a publisher; its listen-only pin makes you a listener, who receives but does not send.",
                     commandsHelp],
        arguments: [
            ArgumentSpec("ROOM", help: "the link conf host printed; or the room id, like 4821-7734, followed by the PIN"),
            ArgumentSpec("PIN", help: "the room's pin or listen-only pin: six digits (not with a link)", isOptional: true),
        ],
        options: [server, ca, fingerprint, me, duration] + callOptions(joining: true) + [json],
        examples: [
            Example("conf join 'https://192.0.2.5:7373/#room=4821-7734&pin=381204&fp=k3f72m7qx4abh6tnc2wzp7r5ve'",
                    "Join the room with the link that conf host printed."),
            Example("conf join 4821-7734 381204 --server 192.0.2.5:7373 --fingerprint k3f7-2m7q-x4ab-h6tn-c2wz-p7r5-ve",
                    "The same with its parts given one by one."),
            Example("conf join 4821-7734 381204 --duration 30 --json", "Join for 30 seconds, printing events as JSON (a script)."),
        ])

    static let certificate = OptionSpec(
        "certificate", value: "KIND",
        help: "the certificate the rendezvous serves: self-signed (its own, trusted by fingerprint), acme (one every browser trusts, "
            + "from an ACME directory such as Let's Encrypt, for this machine's public address or --domain; it needs port 443 or 80 reachable "
            + "from the internet, and the address is then published in Certificate Transparency logs, which scanners read), or a PEM FILE "
            + "holding a certificate (chain) and its key",
        // Files complete; the two words are in the help (a choice list would refuse a FILE).
        completion: .file, environment: "CONF_CERTIFICATE", configurable: true, default: "self-signed")
    static let acmeDirectory = OptionSpec(
        "acme-directory", value: "URL", help: "the ACME directory --certificate acme asks",
        environment: "CONF_ACME_DIRECTORY", configurable: true, default: ACMEIssuance.letsEncrypt)
    static let acmeCA = OptionSpec(
        "acme-ca", value: "FILE", help: "trust the ACME directory's HTTPS by the CA certificates in this PEM file (a test CA) instead of the system's",
        completion: .file, environment: "CONF_ACME_CA", configurable: true)
    static let domain = OptionSpec(
        "domain", value: "NAME", help: "with --certificate acme: the DNS name to get the certificate for, instead of the public address",
        environment: "CONF_DOMAIN", configurable: true)

    static let rendezvous = CommandSpec(
        "rendezvous", abstract: "run a standing rendezvous for many rooms",
        discussion: [
            "Serves POST /v1/rooms, the WebSocket /v1/ws and GET /v1/metrics (docs/PROTOCOL.md). It introduces participants and relays their negotiation; media never passes through it. Its first line on stdout is 'conf rendezvous listening on ADDRESS' (https://HOST:PORT with TLS, HOST:PORT with --no-tls); with TLS the next three are what its users put in their config: a comment, then server = HOST:PORT and fingerprint = FP.",
            "It runs a worker (an event loop) per core, each holding the rooms whose id it owns with their connections; several instances split the rooms by id behind a load balancer with --instance (docs/DEPLOY.md).",
        ],
        options: [
            OptionSpec("listen", short: "l", value: "ADDR", help: "where to listen, HOST:PORT (port 0 picks a free one)",
                       configurable: true, default: defaultListen),
            OptionSpec("tls-cert", value: "FILE", help: "serve HTTPS and WSS with this PEM certificate (needs --tls-key) instead of its own, "
                       + "a self-signed one made and kept in --state-dir, which its users trust by fingerprint", completion: .file),
            OptionSpec("tls-key", value: "FILE", help: "the PEM private key of --tls-cert", completion: .file),
            certificate, acmeDirectory, acmeCA, domain,
            OptionSpec("no-tls", help: "serve plain HTTP and ws://, for a TLS proxy or load balancer in front (pins, tokens and names cross "
                       + "the path between them in clear); what several workers or processes need"),
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
            OptionSpec("room-key-file", value: "FILE",
                       help: "make rooms only for clients that send the key in FILE (conf host's room-key setting); a new key is written to FILE "
                           + "(mode 0600) when it does not exist. Without it, anyone who reaches the rendezvous can open rooms", completion: .file),
            OptionSpec("metrics-from", value: "CIDR",
                       help: "a network that may read /v1/metrics besides this machine (loopback), like 10.0.0.0/8; others get 403",
                       repeatable: true),
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
        options: [json, OptionSpec("names", value: "KIND",
                                    help: "print only names, one a line, as the options take them (what shell completion offers): microphones (--mic), speakers (--speaker), audio-sources, audio-sinks or video-sources (the test sources too)",
                                    completion: .choices(DevicesCommand.NameKind.allCases.map(\.rawValue)))],
        examples: [Example("conf devices --json", "Sources and sinks as JSON."),
                   Example("conf devices --names microphones", "The names --mic takes, one a line.")])

    static let check = CommandSpec(
        "check", abstract: "say what a call from this network would meet, without making a room",
        discussion: [
            "Asks the router to forward the port as conf host would (and deletes the forward again), asks each STUN server (the rendezvous of --server answers STUN at its own port, and each --stun) what address this machine has outside its NATs, compares their answers to tell whether the NAT gives every destination the same outside port (direct links get through) or one of its own each (only a relay helps), lists this machine's global IPv6 addresses and asks each --turn server whether it answers. One line each, then the verdict; with --json one check event.",
            "Exit status 0 when a direct call is likely, 13 when it is not (calls then need a TURN relay), 2 for a usage error.",
        ],
        options: [server, stun, turn,
                  OptionSpec("listen", short: "l", value: "ADDR", help: "the port conf host would listen on, to ask the router for (HOST:PORT)",
                             default: defaultListen),
                  portMapping, json],
        examples: [Example("conf check --server rv.example.org:7373 --stun stun.example.org:3478", "Two STUN servers to compare: the NAT's kind is known."),
                   Example("conf check --json | jq .verdict", "The verdict alone.")])

    static let help = CommandSpec(
        "help", abstract: "show help for a command",
        arguments: [ArgumentSpec("COMMAND", help: "the command to explain", completion: .subcommands, isOptional: true)])

    static let root = CommandSpec(
        "conf", abstract: "private audio/video calls for up to four people, peer to peer",
        subcommands: [host, join, check, rendezvous, devices, completions, help])

    public static let program = Program(
        root: root,
        info: ProgramInfo(
            version: version,
            summary: "private audio/video calls for up to four people, peer to peer, from a terminal",
            description: [
                "conf puts up to four people in one call with no media server: every participant connects directly to every other. A small rendezvous hands out a room id, a pin and a listen-only pin, and relays the participants' negotiation messages; it never sees media.",
                "conf host opens a room (running the rendezvous inside itself unless told of a standing one) and prints the command others paste to join. conf join joins. Both run without a terminal too: --duration, --json and the exit status make them scriptable.",
                "In a terminal (stdin and stdout a terminal, no --json, no --ui lines) the call has a screen: a header, the roster with each link's quality, level meter and the words to compare, others' video when no window shows it, the chat pane and an input line. Its keys are under CALL SCREEN KEYS; Enter opens the input line, where a line is chat and a line starting with / is a call command (/camera next, /mute-peer ann). Pasted text goes into the input line, never acts as keys. Colours follow COLORTERM (24-bit where it says truecolor, else 256) and NO_COLOR (none). The terminal is given back on every way out: leaving, Ctrl-C, SIGINT, SIGTERM, SIGHUP, SIGQUIT, a crash.",
            ],
            exitCodes: ExitCode.allCases.map { ($0.rawValue, $0.meaning) },
            environment: optionEnvironment + [
                ("http_proxy, https_proxy, all_proxy, no_proxy", "the proxy to reach the rendezvous through (ws:// and wss://), and hosts reached directly, as curl reads them (HTTPS_PROXY, ALL_PROXY and NO_PROXY too; localhost, 127.0.0.0/8 and ::1 are always reached directly; socks5h:// is taken as socks5://). A wss:// rendezvous goes through a CONNECT tunnel, which any proxy allows; ws:// goes as an absolute-form request, which some refuse. Media and TURN never go through it: where UDP is blocked, give --turn with ?transport=tcp or tls"),
                ("PULSE_SERVER", "the PulseAudio server to use (read by libpulse)"),
                ("USER", "your name in calls when --as, CONF_NAME and the config file give none"),
                ("XDG_CONFIG_HOME", "where the config file is looked for (default ~/.config)"),
                ("XDG_STATE_HOME", "where conf rendezvous and the built-in rendezvous keep their secret and TLS key (default ~/.local/state)"),
                ("NO_COLOR", "when set and not empty, no colour in output (the call screen's video is then drawn in characters)"),
                ("COLORTERM", "truecolor or 24bit: the call screen uses 24-bit colour, else the 256-colour palette"),
            ],
            files: [
                ("$XDG_CONFIG_HOME/conf/config", "optional settings, one 'key = value' a line, '#' starts a comment; the keys are under CONFIG FILE. Command-line options beat environment variables, which beat this file."),
                ("$XDG_STATE_HOME/conf/rendezvous-tls.pem", "the built-in rendezvous's TLS key and self-signed certificate (mode 0600), made by the first conf host: its fingerprint is what join lines name; remove it to make a new one"),
            ],
            events: CallEvent.Kind.allCases.map { ($0.rawValue, $0.documentation.members.joined(separator: ", "), $0.documentation.meaning) },
            sections: [("Calling across the internet", internetParagraphs)],
            lists: [
                ReferenceList(title: "Call commands", intro: "During a call, on stdin, one a line, or after / on the call screen's input line:", termName: "command",
                              entries: CallCommand.reference.map { ($0.usage, $0.meaning) }),
                ReferenceList(title: "Call screen keys", intro: "On the call screen, outside its input line (? shows them in the call):", termName: "key",
                              entries: CallScreen.keyReference.map { ($0.label, $0.meaning) }),
                ReferenceList(title: "Error codes", intro: "The code of an error event (with --json), also left's reason after a failure, and the exit status it ends with:",
                              termName: "code", entries: ErrorCodeReference.reference),
                ReferenceList(title: "Config file", intro: "Keys of $XDG_CONFIG_HOME/conf/config (default ~/.config/conf/config), one 'key = value' a line, as the long options of the same name; stun and turn take several, separated by spaces:", termName: "key",
                              entries: configKeys),
            ]))

    /// The options' environment variables, one entry per variable, from the command tree.
    static var optionEnvironment: [(name: String, meaning: String)] {
        root.everyOption.compactMap { option in option.environment.map { ($0, "as --\(option.long): \(option.help)") } }
    }

    /// Every key the config file takes, with what its option does.
    static var configKeys: [(term: String, meaning: String)] {
        root.everyOption.filter(\.isConfigurable).map { ($0.long, $0.help) }.sorted { $0.term < $1.term }
    }

    /// The man page's CALLING ACROSS THE INTERNET (the README says the same in short).
    static let internetParagraphs = [
        "conf host, with its built-in rendezvous, asks the home router to forward its port, TCP and UDP (7373 unless --listen says otherwise), by PCP, NAT-PMP and UPnP-IGD, and prints the router's external address in the join line. It says within a few seconds whether others can reach it (the reachability event): reachable (a router forwards the port, or the address is public), closed (no router answered, or it refused: forward TCP and UDP on that port to this machine by hand, or use a standing rendezvous with --server), or carrier-grade-nat (the router itself has no public address, as with many mobile and some fibre and cable providers: a forwarded port cannot help; use a standing rendezvous). The mappings are renewed while the call lasts and removed when conf host leaves, on SIGINT and SIGTERM too. --port-mapping off asks nothing of the router.",
        "Every rendezvous, standing or built in, also answers STUN on UDP at its own port number and hands itself out as the STUN server when it is given none (--stun): each participant learns its address outside its NAT from the server it already talks to, with no third party. With the router's forward for the host, and that address for everyone else, two homes behind ordinary NATs connect directly. Each call's media port is asked for too (on the address the default route leaves from, by PCP, NAT-PMP or UPnP-IGD) and offered to the others as a candidate, so that the host's media are reachable like its rendezvous, even from behind a NAT that no hole punching gets through.",
        "Some NATs give each destination its own port (symmetric NAT: some corporate, hotel and mobile networks); two such peers cannot reach each other directly, and the call needs a relay: a TURN server (coturn) that the rendezvous's operator hands out (conf rendezvous --turn, see docs/DEPLOY.md) or that each participant names with --turn (or CONF_TURN, or the config file). A link that found no path in two tries (a third of --connect-timeout each, at least 4 s) is tried a third time through the relay alone, on both sides; without a relay, the no-path error names what the candidates showed (both behind NATs, a NAT that changed the port) and the cure. Media through TURN stays encrypted end to end.",
        "The pin never crosses the network in clear unless someone wrote ws://: the built-in rendezvous, and conf rendezvous unless given --tls-cert, serve TLS with a key and self-signed certificate made once and kept in $XDG_STATE_HOME/conf/rendezvous-tls.pem; the join line names the certificate with --fingerprint, and conf rendezvous prints the server and fingerprint lines its users put in their config. conf join trusts that certificate and no other, without any CA, and refuses another with exit status 11 before sending anything. --server HOST:PORT without a scheme is TLS (wss://); a ws:// address goes in clear, with a warning unless it is this machine. --no-tls serves plain ws://, behind a TLS proxy or in tests.",
        "IPv6: with --listen [::]:PORT (the default) the rendezvous and the media also use this machine's global IPv6 addresses, which need no NAT (a firewall may still need opening); the join line names the IPv4 address first and lists the others.",
    ]
}
