import ConfCore

/// What `--certificate acme` keeps in the state directory, each file private (mode 0600, as
/// `PrivateStateFile` makes and checks them):
/// - `acme-account.pem`: the account's key (the account itself is found again from it);
/// - `acme-certificate.pem`: the certificate chain and its key, as the TLS listener reads them;
/// - `acme-state.json`: whom the certificate names and from which directory, and the back-off
///   after failures (`ACMECertificatePolicy`), so that a restart neither orders again nor
///   skips a wait.
public struct ACMEStateFiles: Sendable {
    public typealias Problem = RendezvousSecretFile.Problem

    public let accountKeyPath: String
    public let certificatePath: String
    public let statePath: String
    static let limit = 65_536

    public init(directory: String) throws(Problem) {
        try PrivateStateFile.makeDirectories(directory)
        accountKeyPath = directory + "/acme-account.pem"
        certificatePath = directory + "/acme-certificate.pem"
        statePath = directory + "/acme-state.json"
    }

    /// The account key's PEM, made with `make` when there is none yet.
    public func accountKey(make: () throws -> String) throws(Problem) -> String {
        if let kept = try PrivateStateFile.read(accountKeyPath, limit: Self.limit) { return String(decoding: kept, as: UTF8.self) }
        let pem: String
        do {
            pem = try make()
        } catch {
            throw Problem(description: "cannot make an ACME account key: \(error)")
        }
        return String(decoding: try PrivateStateFile.create(accountKeyPath, bytes: Array(pem.utf8), limit: Self.limit), as: UTF8.self)
    }

    /// The kept certificate chain and key (PEM), if any.
    public func certificate() throws(Problem) -> String? {
        try PrivateStateFile.read(certificatePath, limit: Self.limit).map { String(decoding: $0, as: UTF8.self) }
    }

    public func storeCertificate(_ pem: String) throws(Problem) {
        try PrivateStateFile.replace(certificatePath, bytes: Array(pem.utf8))
    }

    /// The state object; nil when there is none or it is not JSON (then it is as if none: the
    /// worst is one more order).
    public func state() throws(Problem) -> JSONValue? {
        guard let bytes = try PrivateStateFile.read(statePath, limit: Self.limit) else { return nil }
        return try? JSONValue.parse(String(decoding: bytes, as: UTF8.self))
    }

    public func storeState(_ state: JSONValue) throws(Problem) {
        try PrivateStateFile.replace(statePath, bytes: Array(state.serialized.utf8))
    }
}
