import ConfCore
import ConfIO
#if canImport(Glibc)
import Glibc
#endif

/// Unbuffered writes to stdout and stderr, one whole line at a time, so a script reading our
/// events sees each one as it happens.
public enum Console {
    public static func out(_ line: String, terminator: String = "\n") { write(line + terminator, to: 1) }
    public static func err(_ line: String) { write(line + "\n", to: 2) }

    private static func write(_ text: String, to fd: Int32) { writeAll(text, to: fd) }

    /// Whether `fd` is a terminal (someone types or reads there).
    public static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

    /// Whether to use ANSI colour on `fd`: a terminal, and NO_COLOR unset (https://no-color.org).
    public static func wantsColor(fd: Int32, environment: [String: String]) -> Bool {
        isatty(fd) == 1 && (environment["NO_COLOR"] ?? "").isEmpty && environment["TERM"] != "dumb"
    }

    /// The process environment as a dictionary.
    public static func environment() -> [String: String] {
        var result: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let pair = String(cString: pointer)
            if let equals = pair.firstIndex(of: "=") {
                result[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
            }
            entry += 1
        }
        return result
    }
}
