import ConfCall
import ConfCore
import ConfDriver
import ConfIO
#if canImport(Glibc)
import Glibc
#endif

/// What `conf host` and `conf join` share: reporting how the session ended, and leaving cleanly on
/// SIGINT, SIGTERM or SIGHUP (a second signal exits at once).
enum ParticipantRun {
    /// What every participant command reads from its command line.
    struct Settings {
        var name: String
        var duration: Duration?
        var call: CallOptions

        init(_ context: CommandContext) throws(CommandFailure) {
            name = try context.participantName()
            duration = try context.duration()
            call = try CallOptions.parse(context)
        }
    }

    /// With port mapping on: where this run keeps what deletes its router mappings should it die
    /// before it could (`PortMappingLeftovers`), and what an earlier conf of this user left
    /// that way, deleted now.
    static func clearLeftoverMappings(_ context: CommandContext, portMapping: Bool, loop: EventLoop) {
        guard portMapping, let state = RendezvousSecretFile.defaultDirectory(context.environment) else { return }
        PortMappingLeftovers.start(in: RendezvousPortLock.directory(context.environment, fallback: state), loop: loop)
    }

    /// Reports the end of a session (`error` if it failed, then `left`) and returns the exit status.
    static func finish(_ result: Result<CallEvent.LeaveReason, CommandFailure>, reporter: EventReporter) -> ExitCode {
        switch result {
        case .success(let reason):
            reporter.emit(.left(reason))
            return .ok
        case .failure(let failure):
            reporter.failure(failure)
            reporter.emit(.left(.failed(code: failure.code)))
            return failure.exitCode
        }
    }

    /// SIGINT, SIGTERM and SIGHUP (the terminal went away) leave the call as `leave` would; a
    /// second one ends the process at once. A SIGHUP ignored when we started (`nohup`) stays so.
    static func leaveOnSignals(_ loop: EventLoop, _ leave: @escaping () -> Void) {
        var signalled = false
        for signal in [SIGINT, SIGTERM, SIGHUP] where !(signal == SIGHUP && EventLoop.isIgnored(SIGHUP)) {
            loop.onSignal(signal) {
                if signalled { ProcessExit.exit(ExitCode.failure.rawValue) }
                signalled = true
                leave()
            }
        }
    }
}
