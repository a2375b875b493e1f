#if canImport(Glibc)
import Glibc
#endif

/// A small text file read whole: the config file, /proc/net/route.
public enum SmallTextFile {
    /// The file's text (at most `limit` bytes of it), or nil when it cannot be opened.
    public static func read(_ path: String, limit: Int = 65_536) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while bytes.count < limit {
            let n = fread(&buffer, 1, min(buffer.count, limit - bytes.count), file)
            if n == 0 { break }
            bytes.append(contentsOf: buffer[..<n])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
