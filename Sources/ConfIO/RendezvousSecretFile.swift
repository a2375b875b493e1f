#if canImport(Glibc)
import Glibc
#endif

/// The standing rendezvous's secret: 32 random bytes in `DIR/rendezvous-secret`, made on first
/// start (mode 0600, DIR 0700) and read on every later one, so that a restarted rendezvous still
/// recognises the resume tokens and the derived pins of its rooms (docs/SECURITY.md).
public enum RendezvousSecretFile {
    /// What is wrong with the file or its directory, and what to do.
    public struct Problem: Error, CustomStringConvertible {
        public let description: String
    }

    static let name = "rendezvous-secret"
    static let size = 32

    /// `$XDG_STATE_HOME/conf`, else `~/.local/state/conf`.
    public static func defaultDirectory(_ environment: [String: String]) -> String? {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state + "/conf" }
        if let home = environment["HOME"], home.hasPrefix("/") { return home + "/.local/state/conf" }
        return nil
    }

    /// The secret in `directory`, made there if there is none yet.
    public static func load(directory: String) throws(Problem) -> [UInt8] {
        try makeDirectories(directory)
        let path = directory + "/" + name
        if let existing = try read(path) { return existing }
        return try create(path)
    }

    /// Nil when there is no file.
    private static func read(_ path: String) throws(Problem) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        if fd < 0 {
            guard errno == ENOENT else { throw failure("cannot read \(path): \(errorText())") }
            return nil
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw failure("cannot read \(path): \(errorText())") }
        if info.st_mode & 0o077 != 0 {
            throw failure("\(path) may be read by other users: make it private with chmod 600 \(path)")
        }
        var bytes = [UInt8](repeating: 0, count: size + 1)
        let count = Glibc.read(fd, &bytes, bytes.count)
        guard count == size else {
            throw failure("\(path) is not a rendezvous secret (\(max(count, 0)) bytes, expected \(size)): remove it to make a new one; participants of the old one then cannot resume")
        }
        return Array(bytes.prefix(size))
    }

    /// Written whole to a private temporary file, then linked into place: a rendezvous starting
    /// at the same moment either reads the complete file or makes it, never half of it.
    private static func create(_ path: String) throws(Problem) -> [UInt8] {
        var random = KernelRandom()
        let bytes = (0..<size / 8).flatMap { _ in withUnsafeBytes(of: random.next()) { Array($0) } }
        let temporary = "\(path).\(getpid()).new"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw failure("cannot create \(temporary): \(errorText())") }
        defer { unlink(temporary) }
        let written = write(fd, bytes, bytes.count) == bytes.count && fsync(fd) == 0
        let why = errorText()
        close(fd)
        guard written else { throw failure("cannot write \(temporary): \(why)") }
        if link(temporary, path) != 0 {
            guard errno == EEXIST, let existing = try read(path) else { throw failure("cannot create \(path): \(errorText())") }
            return existing
        }
        return bytes
    }

    /// `mkdir -p` with mode 0700 for what it creates.
    private static func makeDirectories(_ directory: String) throws(Problem) {
        var path = directory.hasPrefix("/") ? "" : "."
        for component in directory.split(separator: "/") {
            path += "/" + component
            if mkdir(path, 0o700) != 0 && errno != EEXIST {
                throw failure("cannot create the state directory \(path): \(errorText()) — choose another with --state-dir")
            }
        }
    }

    private static func failure(_ message: String) -> Problem { Problem(description: message) }

    private static func errorText() -> String { String(cString: strerror(errno)) }
}
