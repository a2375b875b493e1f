import ConfCall
import ConfWire

/// The exit code, `error` code and words of each way a session with the rendezvous fails.
extension CommandFailure {
    public init(_ failure: RendezvousFailure, rendezvous address: RendezvousAddress, namedBy origin: String? = nil, room: RoomID) {
        switch failure {
        case .cannotConnect(let why):
            self.init(connecting: why, to: address, namedBy: origin)
        case .joinRefused(let code, let text):
            self.init(ExitCode(code), code: code.rawValue, Self.explain(code, text, room: room))
        case .shutDown:
            self.init(.rendezvousUnreachable, code: "server-shutdown", "the rendezvous at \(address) shut down; the call is over")
        case .closedBeforeJoining(let reason):
            self.init(.rendezvousUnreachable, code: "rendezvous-lost",
                      "the rendezvous at \(address) closed the connection" + (reason.isEmpty ? "" : ": \(reason)"))
        case .lostBeforeJoining(let reason):
            self.init(.rendezvousUnreachable, code: "rendezvous-lost",
                      "lost the connection to the rendezvous at \(address)" + (reason.isEmpty ? "" : " (\(reason))") + ": is it still running?")
        case .lostAlone(let why):
            self.init(.rendezvousUnreachable, code: "rendezvous-lost",
                      "lost the connection to the rendezvous at \(address) (\(why.words)) and no peer is connected: is it still running?")
        case .closedAlone(let reason):
            self.init(.rendezvousUnreachable, code: reason.code, "\(reason.words(rendezvous: address.description)), and no peer is connected")
        case .awayAlone(let limit):
            self.init(.rendezvousUnreachable, code: "rendezvous-lost",
                      "lost the connection to the rendezvous at \(address); it stayed unreachable for "
                          + "\(Int(limit.milliseconds / 1000)) s and no peer is connected: is it still running?")
        }
    }

    /// Talking to the rendezvous at `address` failed (opening the WebSocket, or creating a room).
    /// `origin` is where the person named it: "--server", "CONF_SERVER" or the config file's
    /// line; nil for the rendezvous inside `conf host`.
    public init(connecting failure: RendezvousClientError, to address: RendezvousAddress, namedBy origin: String? = nil) {
        switch failure {
        case .unreachable(let why):
            self.init(.rendezvousUnreachable, code: "rendezvous-unreachable",
                      "cannot reach the rendezvous at \(address): \(why) — " + Self.nextStep(reaching: address, namedBy: origin))
        case .refused(let code, let text):
            self.init(ExitCode(code), code: code.rawValue, "the rendezvous at \(address) refused: \(text)")
        case .badAnswer(let text):
            self.init(.rendezvousUnreachable, code: "rendezvous-unreachable", text)
        case .wrongCertificate(let expected, let presented):
            self.init(.wrongCertificate, code: "wrong-certificate",
                      "the rendezvous at \(address) presented certificate \(presented), not \(expected) as the link's fp= (or --fingerprint) says: "
                          + "someone may be in between, or another server answers at that address; nothing was sent. Check the link with whoever sent it")
        case .untrustedCertificate(let why):
            self.init(.rendezvousUnreachable, code: "untrusted-certificate",
                      "the rendezvous at \(address) is not trusted: \(why) — join with the whole link conf host printed (its fp= names "
                          + "the certificate), or add the --fingerprint FP it printed (fingerprint = FP in the config for a standing rendezvous); "
                          + "only a rendezvous whose certificate comes from a private CA needs --ca FILE")
        }
    }

    /// What to do when the rendezvous does not answer, from where its address came.
    static func nextStep(reaching address: RendezvousAddress, namedBy origin: String?) -> String {
        switch origin {
        case nil:
            "the rendezvous inside this conf host did not answer: run it again, and report this if it goes on"
        case "--server"?:
            "is conf host or conf rendezvous running there, and its port open to you? Check the address with whoever gave it"
        case let origin?:
            "the address is from \(origin): correct it there, or give --server the address conf host printed"
        }
    }

    public static func explain(_ code: ErrorCode, _ text: String, room: RoomID) -> String {
        switch code {
        case .wrongPin: "wrong pin for room \(room): check the six digits with the host"
        case .noSuchRoom: "there is no room \(room) on this rendezvous: check the id and --server; rooms expire when empty"
        case .wrongInstance: "\(text) — this address is one instance of a rendezvous split across several; give --server the address of the load balancer in front of them"
        case .roomFull: "room \(room) is full (four participants): ask someone to leave, or open another room"
        case .rateLimited: "too many wrong pins recently: wait a minute before trying again"
        case .notAdmitted: "room \(room) is locked after too many wrong pins and nobody in the call let you in: ask the host to admit you when you knock, or try later"
        default: "the rendezvous refused to join: \(text)"
        }
    }
}
