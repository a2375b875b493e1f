internal import CConfShims
#if canImport(Glibc)
import Glibc
#endif

/// Accepts connections on a listening socket from the event loop and hands each new descriptor
/// to `onAccept`, which owns it from then on.
///
/// libsoup's own listener gives up for good after one failed accept() (its watch returns
/// G_SOURCE_REMOVE on EMFILE; C-INTEROP.md, "Learned since"). This one pauses instead: when the
/// process is out of descriptors (EMFILE, ENFILE) or memory (ENOBUFS, ENOMEM) it stops watching,
/// leaves the waiting connections in the kernel's backlog, and tries again after a back-off that
/// doubles from 50 ms to 1 s, so it neither spins nor stops.
///
/// Threading: on the EventLoop thread it was made on.
final class ConnectionAcceptor {
    private let loop: EventLoop
    private let fd: Int32
    private let onAccept: (Int32) -> Void
    private let acceptOne: (Int32) -> Int32
    private let log: (String) -> Void
    private var watch: Timer?
    private var retry: Timer?
    private var backoff: Duration = .zero
    static let firstBackoff: Duration = .milliseconds(50)
    static let longestBackoff: Duration = .seconds(1)
    /// Accepts per wakeup, so that a connect flood does not starve the connections already open.
    static let batch = 64

    /// `accept` is the system call (the new descriptor or -errno); tests make it fail.
    init(loop: EventLoop, listeningFD: Int32, accept: @escaping (Int32) -> Int32 = { conf_accept($0) },
         log: @escaping (String) -> Void, onAccept: @escaping (Int32) -> Void) {
        self.loop = loop
        acceptOne = accept
        fd = listeningFD
        self.log = log
        self.onAccept = onAccept
        startWatching()
    }

    deinit { stop() }

    func stop() {
        watch?.cancel()
        watch = nil
        retry?.cancel()
        retry = nil
    }

    private func startWatching() {
        watch = loop.watch(fd: fd) { [unowned self] in acceptBatch() }
    }

    /// Returns whether to keep watching.
    private func acceptBatch() -> Bool {
        for _ in 0..<Self.batch {
            let result = acceptOne(fd)
            if result >= 0 {
                if backoff != .zero {
                    log("accepting connections again")
                    backoff = .zero
                }
                onAccept(result)
                continue
            }
            switch -result {
            case EAGAIN, EWOULDBLOCK:
                return true
            case EINTR, ECONNABORTED, EPROTO, EPERM:
                continue  // That one connection is gone; the next may be fine.
            default:
                pause(errno: -result)
                return false
            }
        }
        return true
    }

    private func pause(errno code: Int32) {
        watch = nil  // The watch callback returns false, which destroys the source.
        if backoff == .zero {
            log("cannot accept connections: \(String(cString: strerror(code))); retrying")
            backoff = Self.firstBackoff
        } else {
            backoff = min(backoff * 2, Self.longestBackoff)
        }
        retry = loop.schedule(after: backoff) { [unowned self] in
            retry = nil
            if acceptBatch() { startWatching() }
        }
    }
}
