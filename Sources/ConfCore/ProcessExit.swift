import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// The one way out of the process, and the work that must not be running when it is taken.
///
/// exit(3) runs the process's exit handlers (NSPR's among them, registered by NSS) while other
/// threads go on. A library set-up started on a background thread and still running then crashed
/// the process now and then: libsrtp2's `srtp_init` loads NSS for each cipher's self-test, and
/// NSPR's exit handlers tore down the locks it was using (SIGSEGV or SIGABRT instead of the exit
/// status, about 1 run in 2,000 of an early `conf join` failure). Such set-ups start here, and
/// `exit` waits for them.
///
/// Threading: any thread.
public enum ProcessExit {
    private static let background = DispatchGroup()

    /// How long `exit` waits for background set-ups: far longer than any takes (srtp_init: ~75 ms),
    /// so that only a set-up that hung is left running.
    public static let patience: DispatchTimeInterval = .seconds(5)

    /// Runs `work` on a background thread; `exit` waits until it has returned.
    public static func start(_ work: @escaping @Sendable () -> Void) {
        DispatchQueue.global(qos: .userInitiated).async(group: background, execute: work)
    }

    /// Waits for the background set-ups (at most `patience`), then exits with `status`.
    public static func exit(_ status: Int32) -> Never {
        _ = background.wait(timeout: .now() + patience)
        Glibc.exit(status)
    }
}
