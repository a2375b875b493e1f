import ConfWire

/// Every `code` an `error` event can carry (and `left`'s reason after a failure), what it means
/// and the exit status it ends with. The man page's ERROR CODES and docs/REFERENCE.md are made
/// from this one list; a test reads the sources for every code they can emit and finds it here.
public enum ErrorCodeReference {
    public struct Entry: Sendable {
        public let code: String
        /// nil: the call goes on (the error is reported, nothing ends).
        public let exit: ExitCode?
        public let meaning: String
    }

    public static let entries: [Entry] = conf + rendezvous

    /// conf's own.
    static let conf: [Entry] = [
        .init(code: "usage", exit: .usage, meaning: "the command line or config file is wrong: the message names the option and what to give"),
        .init(code: "bad-command", exit: nil, meaning: "a call command (stdin, or / on the call screen) could not be done; the call goes on"),
        .init(code: "rendezvous-unreachable", exit: .rendezvousUnreachable, meaning: "the rendezvous did not answer, or answered with something else than a conf rendezvous"),
        .init(code: "rendezvous-lost", exit: .rendezvousUnreachable, meaning: "the connection to the rendezvous ended before joining, or stayed lost with no peer connected"),
        .init(code: "server-shutdown", exit: .rendezvousUnreachable, meaning: "the rendezvous shut down with no peer connected"),
        .init(code: "no-resume", exit: .rendezvousUnreachable, meaning: "the rendezvous came back without a resume token for the seat, and no peer is connected"),
        .init(code: "untrusted-certificate", exit: .rendezvousUnreachable, meaning: "the rendezvous's TLS certificate is trusted by nothing given: join with the whole link (its fp=) or --fingerprint"),
        .init(code: "wrong-certificate", exit: .wrongCertificate, meaning: "the rendezvous presented another certificate than the link's fp= or --fingerprint names: nothing was sent"),
        .init(code: "no-peer-connected", exit: .noPeerConnected, meaning: "others were in the room but no link came up within --connect-timeout"),
        .init(code: "no-pulseaudio", exit: .deviceUnavailable, meaning: "a PulseAudio device was asked for and no sound server answers"),
        .init(code: "no-audio-device", exit: .deviceUnavailable, meaning: "the microphone or speaker named (--mic, --speaker, pulse:NAME) is not there, or would not open"),
        .init(code: "no-camera", exit: .deviceUnavailable, meaning: "the camera named (--video-source v4l2:PATH) is not there or is not a camera"),
        .init(code: "bad-audio-file", exit: .usage, meaning: "--audio-source file:PATH is not a WAV file conf can read"),
        .init(code: "bad-video-file", exit: .usage, meaning: "--video-source file:PATH is not a Y4M file conf can read"),
        .init(code: "listen", exit: .failure, meaning: "conf host or conf rendezvous cannot listen where --listen says (in use, or not this machine's address)"),
        .init(code: "state-dir", exit: .failure, meaning: "the state directory or a file in it (the rendezvous secret, the TLS key) cannot be used: the message says which and why"),
        .init(code: "room-key", exit: .failure, meaning: "conf rendezvous cannot read or make its --room-key-file"),
        .init(code: "crypto", exit: .failure, meaning: "the DTLS certificate could not be made (OpenSSL)"),
        .init(code: "opus", exit: .failure, meaning: "the audio encoder would not start"),
        .init(code: "vp8", exit: .failure, meaning: "the video encoder would not start"),
        .init(code: "failed", exit: .failure, meaning: "the call failed for a reason no other code names"),
    ]

    /// The rendezvous's own (docs/PROTOCOL.md), as conf reports them.
    static let rendezvous: [Entry] = ErrorCode.allCases.map { code in
        let meaning = switch code {
        case .badMessage: "the rendezvous could not read a message (a client bug)"
        case .badRequest: "the rendezvous refused a request as malformed (a client bug)"
        case .wrongPin: "wrong pin for the room"
        case .noSuchRoom: "no room with that id (mistyped, or it expired)"
        case .roomFull: "the room already has four participants"
        case .rateLimited: "too many wrong pins recently: wait a minute"
        case .notJoined: "a message before joining (a client bug)"
        case .alreadyJoined: "a second join on one connection (a client bug)"
        case .noSuchPeer: "a message for a participant who is not in the room"
        case .tooLarge: "a message over the rendezvous's size limit"
        case .flood: "too many messages too fast: the rendezvous closed the connection"
        case .serverFull: "the rendezvous has as many rooms or connections as it takes"
        case .notFound: "no such path on the rendezvous"
        case .forbidden: "the rendezvous makes rooms only with its room key (room-key), or the request came from another site"
        case .notAdmitted: "the room is locked after wrong pins and nobody let you in"
        case .resumeRefused: "the rendezvous no longer has the seat (after a long loss); with no peer connected the call ends"
        case .wrongInstance: "the room is held by another instance of a partitioned rendezvous: give --server the load balancer's address"
        case .tooManyConnections: "too many connections from this address at once"
        }
        return Entry(code: code.rawValue, exit: ExitCode(code), meaning: meaning)
    }

    /// As the man page and REFERENCE list them: the code, then its exit status and meaning.
    public static var reference: [(term: String, meaning: String)] {
        entries.map { entry in
            (entry.code, (entry.exit.map { "exit \($0.rawValue): " } ?? "no exit: ") + entry.meaning)
        }
    }
}
