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
        fingerprint = Fingerprint(.sha256, bytes: Self.digest(of: x509, .sha256))
    }

    deinit {
        X509_free(certificate)
        EVP_PKEY_free(key)
    }

    /// This certificate's fingerprint with another hash function (conf sends sha-256; peers may
    /// give others, RFC 8122 section 5).
    public func fingerprint(_ function: Fingerprint.HashFunction) -> Fingerprint {
        Fingerprint(function, bytes: Self.digest(of: certificate, function))
    }

    /// The hash of a certificate's DER encoding: what a=fingerprint carries (RFC 8122 section 5).
    static func digest(of x509: OpaquePointer, _ function: Fingerprint.HashFunction) -> [UInt8] {
        let md: OpaquePointer? = switch function {
        case .sha1: EVP_sha1()
        case .sha224: EVP_sha224()
        case .sha256: EVP_sha256()
        case .sha384: EVP_sha384()
        case .sha512: EVP_sha512()
        }
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard X509_digest(x509, md, &digest, &length) == 1 else { return [] }
        return Array(digest.prefix(Int(length)))
    }
}
