import ConfWire

/// Why things ended or failed: each a code for scripts, with the details its words need.
extension CallEvent {
    /// Why the connection to the rendezvous broke (the call goes on; conf reconnects).
    public enum RendezvousLoss: Equatable, Sendable {
        /// The connection closed: the WebSocket close code and the server's reason (may be empty).
        case closed(code: UInt16, reason: String)
        /// No answer to pings for too long.
        case stoppedAnswering
        /// Reconnected, then lost again before the seat was taken back.
        case closedWhileResuming
        /// This machine's addresses changed and the connection did not answer a ping within
        /// `RendezvousSession.networkProbeWait` (its address may be gone).
        case networkChanged

        public var code: String {
            switch self {
            case .closed: "closed"
            case .stoppedAnswering: "stopped-answering"
            case .closedWhileResuming: "closed-while-resuming"
            case .networkChanged: "network-changed"
            }
        }

        /// The reason in words (`rendezvous-lost`'s `reason`).
        public var words: String {
            switch self {
            case .closed(let code, let reason): reason.isEmpty ? "connection closed (\(code))" : reason
            case .stoppedAnswering: "it stopped answering"
            case .closedWhileResuming: "the connection closed again before the seat was taken back"
            case .networkChanged: "this machine's network changed and the connection stopped answering"
            }
        }
    }

    /// Why there is no rendezvous from now on (the call goes on with those connected).
    public enum RendezvousClosing: Equatable, Sendable {
        /// The host left, and their embedded rendezvous with them.
        case hostLeft
        /// A reconnected rendezvous no longer has the seat: it said `code` (usually `resume-refused`).
        case seatGone(ErrorCode, message: String)
        /// The rendezvous gave no resume token, so the seat cannot be taken back.
        case noResume

        public var code: String {
            switch self {
            case .hostLeft: "host-left"
            case .seatGone(let code, _): code.rawValue
            case .noResume: "no-resume"
            }
        }

        /// The reason in words; `rendezvous` is its address.
        public func words(rendezvous: String) -> String {
            switch self {
            case .hostLeft: "the host left and their rendezvous with them"
            case .seatGone(_, let message): "the rendezvous at \(rendezvous) no longer has this room (\(message))"
            case .noResume: "the rendezvous at \(rendezvous) gave no resume token, so the seat cannot be taken back"
            }
        }
    }

    /// Why we left.
    public enum LeaveReason: Equatable, Sendable {
        /// --duration ran out.
        case duration
        /// SIGINT or SIGTERM.
        case signal
        /// The `leave` command on stdin.
        case command
        /// The host left with its built-in rendezvous while no link was up.
        case hostLeft
        /// The rendezvous was gone (the host left with it, say) and the last link ended after.
        case nobodyLeft
        /// The session failed with this error code (an `error` event said why).
        case failed(code: String)

        public var code: String {
            switch self {
            case .duration: "duration"
            case .signal: "signal"
            case .command: "command"
            case .hostLeft: "host-left"
            case .nobodyLeft: "nobody-left"
            case .failed(let code): code
            }
        }
    }

    /// Something failed; `code` is stable for scripts.
    public enum ErrorReport: Equatable, Sendable {
        /// The rendezvous reported an error while we were in the room.
        case rendezvous(ErrorCode, message: String)
        /// A command on stdin could not be done; the call goes on.
        case badCommand(String)
        /// The session (or the command) failed and ends.
        case failed(code: String, message: String)

        public var code: String {
            switch self {
            case .rendezvous(let code, _): code.rawValue
            case .badCommand: "bad-command"
            case .failed(let code, _): code
            }
        }

        public var message: String {
            switch self {
            case .rendezvous(_, let message), .badCommand(let message), .failed(_, let message): message
            }
        }
    }
}
