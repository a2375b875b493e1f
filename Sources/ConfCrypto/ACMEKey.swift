internal import COpenSSL
internal import CCryptoShims
import ConfCore
import ConfWire

/// A P-256 key for ACME: the account's (it signs requests, ES256) or a certificate's (it signs the
/// CSR and serves TLS). Kept as unencrypted PKCS #8 PEM in the state directory.
///
/// Threading: any thread; OpenSSL's key objects are safe to use from several at once for signing.
public final class ACMEKey: ACMEAccountKey, @unchecked Sendable {
    let key: OpaquePointer

    /// A new key.
    public init() throws(CryptoError) {
        guard let key = conf_generate_p256_key() else { throw .openSSL("cannot generate a P-256 key") }
        self.key = key
    }

    /// The key in `pem`; throws unless it is an unencrypted P-256 private key.
    public init(pem: String) throws(CryptoError) {
        let bytes = Array(pem.utf8)
        guard let bio = bytes.withUnsafeBytes({ BIO_new_mem_buf($0.baseAddress, Int32($0.count)) }) else { throw .openSSL("cannot allocate a buffer") }
        defer { BIO_free(bio) }
        guard let key = PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in 0 }, nil) else {
            ERR_clear_error()
            throw CryptoError("not a PEM private key")
        }
        var point = [UInt8](repeating: 0, count: 65)
        guard conf_p256_public_point(key, &point) == 1 else {
            EVP_PKEY_free(key)
            ERR_clear_error()
            throw CryptoError("not a P-256 key")
        }
        self.key = key
    }

    deinit { EVP_PKEY_free(key) }

    /// The private key as PKCS #8 PEM.
    public var pem: String {
        guard let bio = BIO_new(BIO_s_mem()) else { return "" }
        defer { BIO_free(bio) }
        guard PEM_write_bio_PrivateKey(bio, key, nil, nil, 0, nil, nil) == 1 else { return "" }
        return Self.read(bio)
    }

    public var jwk: String {
        var point = [UInt8](repeating: 0, count: 65)
        _ = conf_p256_public_point(key, &point)
        let x = Base64.encode(Array(point[1...32]), urlSafe: true), y = Base64.encode(Array(point[33...64]), urlSafe: true)
        return #"{"crv":"P-256","kty":"EC","x":"\#(x)","y":"\#(y)"}"#
    }

    public var thumbprint: String { Base64.encode(Self.sha256(Array(jwk.utf8)), urlSafe: true) }

    public func sign(_ input: [UInt8]) throws -> [UInt8] {
        var signature = [UInt8](repeating: 0, count: 64)
        guard conf_es256_sign(key, input, input.count, &signature) == 1 else { throw CryptoError.openSSL("cannot sign") }
        return signature
    }

    /// A DER certificate signing request for `identifier`, signed by this key.
    public func certificateRequest(for identifier: ACMEIdentifier) throws(CryptoError) -> [UInt8] {
        let name = try Self.subjectAltName(identifier)
        var der: UnsafeMutablePointer<UInt8>?
        let length = conf_make_csr(key, name, &der)
        guard length > 0, let der else { throw .openSSL("cannot make a certificate request for \(identifier)") }
        defer { conf_openssl_free(der) }
        return Array(UnsafeBufferPointer(start: der, count: Int(length)))
    }

    /// The certificate (PEM, then this key's PEM, as GLib reads them from one file) that answers
    /// a tls-alpn-01 `challenge` (RFC 8737 section 3).
    public func challengeCertificate(for challenge: ACMEChallenge) throws(CryptoError) -> String {
        let name = try Self.subjectAltName(challenge.identifier)
        let digest = Self.sha256(Array(challenge.keyAuthorization.utf8))
        guard let certificate = conf_make_acme_challenge_certificate(key, name, digest) else { throw .openSSL("cannot make the tls-alpn-01 certificate") }
        defer { X509_free(certificate) }
        guard let bio = BIO_new(BIO_s_mem()) else { throw .openSSL("cannot allocate a buffer") }
        defer { BIO_free(bio) }
        guard PEM_write_bio_X509(bio, certificate) == 1 else { throw .openSSL("cannot write the certificate") }
        return Self.read(bio) + pem
    }

    public static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        _ = EVP_Digest(bytes, bytes.count, &digest, &length, EVP_sha256(), nil)
        return digest
    }

    /// OpenSSL's configuration syntax ("IP:192.0.2.1"): checked first, as a comma would start
    /// another name.
    static func subjectAltName(_ identifier: ACMEIdentifier) throws(CryptoError) -> String {
        switch identifier {
        case .ip(let address):
            guard address.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) || (0x41...0x46).contains($0) || $0 == 0x2E || $0 == 0x3A }) else {
                throw CryptoError("\(address) is not an IP address")
            }
            return "IP:" + address
        case .dns(let name):
            guard !name.isEmpty, name.utf8.count <= 253,
                  name.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x7A).contains($0) || (0x41...0x5A).contains($0) || $0 == 0x2E || $0 == 0x2D }) else {
                throw CryptoError("\(name) is not a DNS name")
            }
            return "DNS:" + name
        }
    }

    static func read(_ bio: OpaquePointer) -> String {
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while case let count = BIO_read(bio, &chunk, Int32(chunk.count)), count > 0 { out += chunk.prefix(Int(count)) }
        return String(decoding: out, as: UTF8.self)
    }
}

/// What conf needs to know of a certificate chain it was issued or given: when it expires and whom it names.
public struct CertificateChainSummary: Equatable, Sendable {
    /// The leaf's notAfter, seconds since 1970.
    public var notAfter: Int64
    public var notBefore: Int64

    /// The first certificate of `pem`; nil when there is none.
    public init?(pem: String) {
        let bytes = Array(pem.utf8)
        guard let bio = bytes.withUnsafeBytes({ BIO_new_mem_buf($0.baseAddress, Int32($0.count)) }) else { return nil }
        defer { BIO_free(bio) }
        self.init(bio: bio)
    }

    /// The first certificate of the PEM file at `path`.
    public init?(pemFile path: String) {
        guard let bio = BIO_new_file(path, "r") else { return nil }
        defer { BIO_free(bio) }
        self.init(bio: bio)
    }

    private init?(bio: OpaquePointer) {
        guard let certificate = PEM_read_bio_X509(bio, nil, nil, nil) else {
            ERR_clear_error()
            return nil
        }
        defer { X509_free(certificate) }
        var before = 0, after = 0
        guard conf_certificate_validity(certificate, &before, &after) == 1 else { return nil }
        (notBefore, notAfter) = (Int64(before), Int64(after))
    }
}
