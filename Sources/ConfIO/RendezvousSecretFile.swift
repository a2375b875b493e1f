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
        try PrivateStateFile.makeDirectories(directory)
        let path = directory + "/" + name
        let check = { (bytes: [UInt8]) throws(Problem) in
            guard bytes.count == size else {
                throw Problem(description: "\(path) is not a rendezvous secret (\(bytes.count) bytes, expected \(size)): remove it to make a new one; participants of the old one then cannot resume")
            }
        }
        if let existing = try PrivateStateFile.read(path, limit: size + 1) {
            try check(existing)
            return existing
        }
        var random = KernelRandom()
        let made = try PrivateStateFile.create(path, bytes: (0..<size / 8).flatMap { _ in withUnsafeBytes(of: random.next()) { Array($0) } },
                                               limit: size + 1)
        try check(made)
        return made
    }
}
