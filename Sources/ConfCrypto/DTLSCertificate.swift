internal import COpenSSL
internal import CCryptoShims
import ConfWire

/// The ECDSA P-256 key and self-signed certificate this process presents in DTLS, made at
/// start-up (RFC 8827 section 6.5: a fresh certificate, identified by its fingerprint in SDP).
public final class DTLSCertificate: @unchecked Sendable {
    let key: OpaquePointer
    let certificate: OpaquePointer
    public let fingerprint: Fingerprint

    public init() throws(CryptoError) {
        guard let key = conf_generate_p256_key() else { throw .openSSL("cannot generate a P-256 key") }
        guard let x509 = X509_new() else {
            EVP_PKEY_free(key)
            throw .openSSL("cannot allocate a certificate")
        }
        var serial = [UInt8](repeating: 0, count: 8)
        RAND_bytes(&serial, 8)
        ASN1_INTEGER_set(X509_get_serialNumber(x509), Int(serial.withUnsafeBytes { $0.load(as: UInt32.self) } & 0x7FFF_FFFF))
        X509_set_version(x509, 2)
        X509_gmtime_adj(X509_getm_notBefore(x509), -86_400)
        X509_gmtime_adj(X509_getm_notAfter(x509), 30 * 86_400)
        let name = X509_get_subject_name(x509)
        X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, "conf", -1, -1, 0)
        X509_set_issuer_name(x509, name)
        X509_set_pubkey(x509, key)
        guard X509_sign(x509, key, EVP_sha256()) > 0 else {
            X509_free(x509)
            EVP_PKEY_free(key)
            throw .openSSL("cannot sign the certificate")
        }
        self.key = key
        certificate = x509
        fingerprint = Fingerprint(bytes: Self.sha256(of: x509))
    }

    deinit {
        X509_free(certificate)
        EVP_PKEY_free(key)
    }

    /// The SHA-256 of a certificate's DER encoding: what a=fingerprint carries (RFC 8122 section 5).
    static func sha256(of x509: OpaquePointer) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        X509_digest(x509, EVP_sha256(), &digest, &length)
        return Array(digest.prefix(Int(length)))
    }
}
