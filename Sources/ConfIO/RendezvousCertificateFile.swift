/// The built-in rendezvous's TLS key and self-signed certificate, in one PEM file kept beside
/// the rendezvous secret (`DIR/rendezvous-tls.pem`, mode 0600): made on the first `conf host` and
/// read on every later one, so that the fingerprint in its join lines stays the same.
public enum RendezvousCertificateFile {
    static let name = "rendezvous-tls.pem"
    static let limit = 16_384

    /// The file's path in `directory`; `make` gives the PEM text when there is no file yet.
    public static func load(directory: String, make: () throws -> String) throws(RendezvousSecretFile.Problem) -> String {
        try PrivateStateFile.makeDirectories(directory)
        let path = directory + "/" + name
        if try PrivateStateFile.read(path, limit: limit) != nil { return path }
        let pem: String
        do {
            pem = try make()
        } catch {
            throw RendezvousSecretFile.Problem(description: "cannot make a TLS key for the rendezvous: \(error)")
        }
        _ = try PrivateStateFile.create(path, bytes: Array(pem.utf8), limit: limit)
        return path
    }
}
