import ConfWire

/// The process's exit status: what a script can tell apart (README, man page "EXIT STATUS").
public enum ExitCode: Int32, Sendable, CaseIterable {
    case ok = 0
    case failure = 1
    case usage = 2
    case wrongPin = 3
    case roomFull = 4
    case noSuchRoom = 5
    case rendezvousUnreachable = 6
    case rateLimited = 7
    case noPeerConnected = 8
    case deviceUnavailable = 9
    case notAdmitted = 10
    case wrongCertificate = 11
    case forbidden = 12
    case directCallUnlikely = 13

    public var meaning: String {
        switch self {
        case .ok: "success: the call ended as asked (--duration reached, leave, a signal), or nobody is left to talk to: the others left, or the host left with its built-in rendezvous while nobody was connected to you"
        case .failure: "any other error; the message says which"
        case .usage: "bad command line or config file: unknown option or command, missing or invalid argument"
        case .wrongPin: "wrong pin for the room"
        case .roomFull: "the room already has four participants"
        case .noSuchRoom: "no room with that id on the rendezvous (mistyped, or it expired)"
        case .rendezvousUnreachable: "the rendezvous could not be reached at join time, or was lost and no peer was connected (within 30 s)"
        case .rateLimited: "too many wrong pins recently, for this room or from this address: wait a minute"
        case .noPeerConnected: "conf join only: others were in the room when it joined but no peer connection could be made within --connect-timeout"
        case .deviceUnavailable: "a device asked for by flag, environment or config file could not be opened (no PulseAudio server, no such microphone or speaker, or no such camera)"
        case .notAdmitted: "the room was locked after too many wrong pins, and nobody in the call let you in (denied, or no answer in time)"
        case .forbidden: "conf host only: the rendezvous makes rooms only for holders of its room key (room-key), and none or another was given"
        case .directCallUnlikely: "conf check only: a direct call is unlikely from this network (its NAT gives each destination a port of its own and no port is forwarded, or no STUN server answered): calls need a TURN relay (--turn) or a forwarded port"
        case .wrongCertificate: "the rendezvous presented another TLS certificate than the one --fingerprint names (someone in between, or another server at that address): nothing was sent to it"
        }
    }

    public init(_ code: ErrorCode) {
        switch code {
        case .wrongPin: self = .wrongPin
        case .roomFull: self = .roomFull
        case .noSuchRoom, .wrongInstance: self = .noSuchRoom
        case .rateLimited: self = .rateLimited
        case .notAdmitted: self = .notAdmitted
        case .forbidden: self = .forbidden
        default: self = .failure
        }
    }
}

/// A failure that ends the command: what to print and how to exit.
public struct CommandFailure: Error, Sendable {
    public var exitCode: ExitCode
    /// Stable identifier for the `error` event: "wrong-pin", "rendezvous-unreachable", ...
    public var code: String
    public var message: String

    public init(_ exitCode: ExitCode, code: String, _ message: String) {
        self.exitCode = exitCode
        self.code = code
        self.message = message
    }
}
