internal import COpenSSL
internal import CCryptoShims
import ConfWire

/// The built-in rendezvous's TLS identity: an ECDSA P-256 key and a self-signed certificate, made
/// once and kept, which join lines name by `ServerFingerprint` instead of any CA vouching for it.
public enum RendezvousIdentity {
    /// A new key and certificate as one PEM text (certificate first, then the key), which GLib
    /// reads from one file. The certificate never expires in practice (valid to 9999-12-31, RFC
    /// 5280 section 4.1.2.5's "no well-defined expiration"): it is trusted by its fingerprint,
    /// which must not change from call to call.
    public static func make() throws(CryptoError) -> String {
        guard let key = conf_generate_p256_key() else { throw .openSSL("cannot generate a P-256 key") }
        defer { EVP_PKEY_free(key) }
        guard let x509 = X509_new() else { throw .openSSL("cannot allocate a certificate") }
        defer { X509_free(x509) }
        var serial: UInt64 = 0
        RAND_bytes(&serial, 8)
        ASN1_INTEGER_set_uint64(X509_get_serialNumber(x509), serial >> 1)
        X509_set_version(x509, 2)
        X509_gmtime_adj(X509_getm_notBefore(x509), -86_400)
        guard ASN1_TIME_set_string(X509_getm_notAfter(x509), "99991231235959Z") == 1 else { throw .openSSL("cannot set the certificate's validity") }
        let name = X509_get_subject_name(x509)
        X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, "conf rendezvous", -1, -1, 0)
        X509_set_issuer_name(x509, name)
        X509_set_pubkey(x509, key)
        guard X509_sign(x509, key, EVP_sha256()) > 0 else { throw .openSSL("cannot sign the certificate") }
        guard let bio = BIO_new(BIO_s_mem()) else { throw .openSSL("cannot allocate a buffer") }
        defer { BIO_free(bio) }
        guard PEM_write_bio_X509(bio, x509) == 1, PEM_write_bio_PrivateKey(bio, key, nil, nil, 0, nil, nil) == 1 else {
            throw .openSSL("cannot write the key and certificate")
        }
        var bytes = [UInt8](repeating: 0, count: 8192)
        let count = BIO_read(bio, &bytes, Int32(bytes.count))
        guard count > 0 else { throw .openSSL("cannot write the key and certificate") }
        return String(decoding: bytes.prefix(Int(count)), as: UTF8.self)
    }

    /// The fingerprint of the (first) certificate in a PEM file.
    public static func fingerprint(ofPEMFile path: String) throws(CryptoError) -> ServerFingerprint {
        guard let bio = BIO_new_file(path, "r") else { throw .openSSL("cannot open \(path)") }
        defer { BIO_free(bio) }
        guard let x509 = PEM_read_bio_X509(bio, nil, nil, nil) else {
            ERR_clear_error()
            throw CryptoError("\(path) holds no PEM certificate")
        }
        defer { X509_free(x509) }
        return ServerFingerprint(sha256: DTLSCertificate.digest(of: x509, .sha256))
    }
}
