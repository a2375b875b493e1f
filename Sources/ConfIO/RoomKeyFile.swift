import ConfRendezvous

/// `conf rendezvous --room-key-file FILE`: the key that lets its holders make rooms, on the file's
/// first line. Made with a new random key (mode 0600) when there is no file; refused, as the
/// rendezvous secret is, when another user owns it or may read it.
public enum RoomKeyFile {
    /// The key in `path`, and whether it was made just now.
    public static func load(_ path: String) throws(RendezvousSecretFile.Problem) -> (key: RoomKey, made: Bool) {
        let limit = 1_024
        var made = false
        var bytes = try PrivateStateFile.read(path, limit: limit)
        if bytes == nil {
            var random = KernelRandom()
            bytes = try PrivateStateFile.create(path, bytes: Array((RoomKey.random(using: &random).text + "\n").utf8), limit: limit)
            made = true
        }
        let line = String(decoding: bytes!.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
        guard let key = RoomKey(line.hasSuffix("\r") ? String(line.dropLast()) : line) else {
            throw RendezvousSecretFile.Problem(description: "\(path): its first line is not a room key (\(RoomKey.problem)): correct it, or remove the file to have a new key made")
        }
        return (key, made)
    }
}
