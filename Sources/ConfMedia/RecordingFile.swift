#if canImport(Glibc)
import Glibc
#endif

/// Why a recording could not be written: the file and the system's own words for the failure
/// ("No space left on device", "File too large").
public struct RecordingError: Error, Sendable, CustomStringConvertible {
    public let path: String
    /// The errno of the failed call.
    public let code: Int32
    /// strerror's text for `code`.
    public let reason: String

    init(path: String, code: Int32) {
        self.path = path
        self.code = code
        reason = String(cString: strerror(code))
    }

    public var description: String { "\(path): \(reason)" }
}

/// A recording's file on disk, written with write(2) and pwrite(2) so that a failure (disk full,
/// RLIMIT_FSIZE) is seen by the write that hit it, not at some later flush.
///
/// `size` is what is known to be on disk. Created new: an existing file is never opened, so a
/// recording never overwrites anything.
final class RecordingFile {
    let path: String
    private var descriptor: Int32
    private(set) var size = 0

    /// Creates `path`; fails with EEXIST when something is already there.
    init(creating path: String) throws(RecordingError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw RecordingError(path: path, code: errno) }
        self.path = path
        descriptor = fd
    }

    deinit { close() }

    var isOpen: Bool { descriptor >= 0 }

    /// Appends `bytes` at the end. On failure `size` still counts the part that was written.
    func append(_ bytes: [UInt8]) throws(RecordingError) {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress! + done, bytes.count - done, off_t(size)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw RecordingError(path: path, code: errno)
            }
            if n == 0 { throw RecordingError(path: path, code: ENOSPC) }
            done += n
            size += n
        }
    }

    /// Writes `bytes` over what is at `offset` (a header), which is already on disk: this needs no
    /// new space, so it works on a full disk too.
    func overwrite(_ bytes: [UInt8], at offset: Int) throws(RecordingError) {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress! + done, bytes.count - done, off_t(offset + done)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw RecordingError(path: path, code: errno)
            }
            if n == 0 { throw RecordingError(path: path, code: EIO) }
            done += n
        }
    }

    /// Cuts the file back to `length` bytes (a partial sample or frame after a failed write).
    func truncate(to length: Int) {
        guard length < size, ftruncate(descriptor, off_t(length)) == 0 else { return }
        size = length
    }

    func close() {
        guard descriptor >= 0 else { return }
        _ = Glibc.close(descriptor)
        descriptor = -1
    }

    /// Removes a file that never got a usable header.
    func remove() {
        close()
        unlink(path)
    }
}
