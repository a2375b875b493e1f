import ConfCore
#if canImport(Glibc)
import Glibc
#endif

/// Keeps a second rendezvous of this user off a port that this one's workers share (SO_REUSEPORT
/// lets any socket of the same user join them): an flock on `DIR/rendezvous-PORT.lock`, in a
/// directory of this user's that nobody else may write to ($XDG_RUNTIME_DIR/conf, else the state
/// directory), held for the process's life. Another user can neither take nor hold it.
public final class RendezvousPortLock {
    private let fd: Int32

    /// The directory for the lock: `$XDG_RUNTIME_DIR/conf` when there is one, else `fallback`.
    public static func directory(_ environment: [String: String], fallback: String) -> String {
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") { return runtime + "/conf" }
        return fallback
    }

    /// Throws when another rendezvous of this user holds the port (EADDRINUSE), or the file cannot be made.
    public init(port: UInt16, directory: String) throws(GLibError) {
        do throws(RendezvousSecretFile.Problem) {
            try PrivateStateFile.makeDirectories(directory)
        } catch {
            throw GLibError(domain: "conf", code: EACCES, message: error.description)
        }
        let path = "\(directory)/rendezvous-\(port).lock"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw GLibError(domain: "conf", code: errno, message: "cannot make \(path): \(String(cString: strerror(errno)))") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let busy = errno == EWOULDBLOCK
            let why = String(cString: strerror(errno))
            close(fd)
            throw GLibError(domain: "conf", code: EADDRINUSE,
                            message: busy ? "another conf rendezvous of this user serves port \(port) already" : "cannot lock \(path): \(why)")
        }
        self.fd = fd
    }

    deinit { close(fd) }
}
