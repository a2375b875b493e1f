#if canImport(Glibc)
import Glibc
#endif

/// A small file of the rendezvous's own that nobody else may read (the secret, the TLS key): made
/// once, mode 0600 in a 0700 directory, and read on every later start. The file and its directory
/// must be this user's and closed to others: a file another user owns, or could replace, is not
/// ours to trust (docs/SECURITY.md, "State files").
enum PrivateStateFile {
    typealias Problem = RendezvousSecretFile.Problem

    /// The file's bytes (at most `limit` are read), or nil when there is none. A file that other
    /// users may read is refused: a secret in it is no longer one.
    static func read(_ path: String, limit: Int) throws(Problem) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        if fd < 0 {
            guard errno == ENOENT else { throw failure("cannot read \(path): \(errorText())") }
            return nil
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw failure("cannot read \(path): \(errorText())") }
        if info.st_uid != geteuid() {
            throw failure("\(path) belongs to user \(info.st_uid), not to this one (\(geteuid())): remove it, or run as its owner")
        }
        if info.st_mode & 0o077 != 0 {
            throw failure("\(path) may be read by other users: make it private with chmod 600 \(path)")
        }
        var bytes = [UInt8](repeating: 0, count: limit)
        var count = 0
        while count < limit {
            let got = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + count, limit - count) }
            guard got > 0 else { break }
            count += got
        }
        return Array(bytes.prefix(count))
    }

    /// Written whole to a private temporary file, then linked into place: a process starting at
    /// the same moment either reads the complete file or makes it, never half of it. Returns what
    /// is at `path` after: `bytes`, or the file another process made first.
    static func create(_ path: String, bytes: [UInt8], limit: Int) throws(Problem) -> [UInt8] {
        let temporary = try writeTemporary(beside: path, bytes)
        defer { unlink(temporary) }
        if link(temporary, path) != 0 {
            guard errno == EEXIST, let existing = try read(path, limit: limit) else { throw failure("cannot create \(path): \(errorText())") }
            return existing
        }
        return bytes
    }

    /// Written whole to a private temporary file, then renamed over `path`: a reader sees the old
    /// file or the new one, never a mix (a renewed certificate).
    static func replace(_ path: String, bytes: [UInt8]) throws(Problem) {
        let temporary = try writeTemporary(beside: path, bytes)
        guard rename(temporary, path) == 0 else {
            let why = errorText()
            unlink(temporary)
            throw failure("cannot replace \(path): \(why)")
        }
    }

    private static func writeTemporary(beside path: String, _ bytes: [UInt8]) throws(Problem) -> String {
        var random = KernelRandom()
        let temporary = "\(path).\(getpid()).\(String(random.next(), radix: 16)).new"
        // O_EXCL: a file already at this name (planted, or left by a crash) is never written through.
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw failure("cannot create \(temporary): \(errorText())") }
        let written = write(fd, bytes, bytes.count) == bytes.count && fsync(fd) == 0
        let why = errorText()
        close(fd)
        guard written else {
            unlink(temporary)
            throw failure("cannot write \(temporary): \(why)")
        }
        return temporary
    }

    /// `mkdir -p` with mode 0700 for what it creates; the last directory must then be this
    /// user's and writable by nobody else (whoever can write to it can swap the files in it).
    static func makeDirectories(_ directory: String) throws(Problem) {
        var path = directory.hasPrefix("/") ? "" : "."
        for component in directory.split(separator: "/") {
            path += "/" + component
            if mkdir(path, 0o700) != 0 && errno != EEXIST {
                throw failure("cannot create the state directory \(path): \(errorText()) — choose another with --state-dir")
            }
        }
        var info = stat()
        guard stat(directory, &info) == 0 else { throw failure("cannot read the state directory \(directory): \(errorText())") }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw failure("the state directory \(directory) is not a directory — choose another with --state-dir")
        }
        guard info.st_uid == geteuid() else {
            throw failure("the state directory \(directory) belongs to user \(info.st_uid), not to this one (\(geteuid())) — choose another with --state-dir")
        }
        guard info.st_mode & 0o022 == 0 else {
            throw failure("other users may write to the state directory \(directory): make it private with chmod 700 \(directory)")
        }
    }

    private static func failure(_ message: String) -> Problem { Problem(description: message) }

    private static func errorText() -> String { String(cString: strerror(errno)) }
}
