internal import COpenSSL

/// A certificate and private key in PEM files, as `conf rendezvous --tls-cert/--tls-key` takes
/// them. GLib accepts a key that does not belong to the certificate and only fails each TLS
/// handshake later; this check finds it at start-up.
public enum PEMKeyPair {
    /// Throws, naming the file, unless `certificateFile` holds a certificate, `keyFile` an
    /// unencrypted private key, and the key is the certificate's.
    public static func check(certificateFile: String, keyFile: String) throws(CryptoError) {
        guard let certificateBIO = BIO_new_file(certificateFile, "r") else { throw .openSSL("cannot open \(certificateFile)") }
        defer { BIO_free(certificateBIO) }
        guard let certificate = PEM_read_bio_X509(certificateBIO, nil, nil, nil) else {
            ERR_clear_error()
            throw CryptoError("\(certificateFile) holds no PEM certificate")
        }
        defer { X509_free(certificate) }
        guard let keyBIO = BIO_new_file(keyFile, "r") else { throw .openSSL("cannot open \(keyFile)") }
        defer { BIO_free(keyBIO) }
        // No password callback: an encrypted key fails here instead of prompting.
        guard let key = PEM_read_bio_PrivateKey(keyBIO, nil, { _, _, _, _ in 0 }, nil) else {
            ERR_clear_error()
            throw CryptoError("\(keyFile) holds no PEM private key (or an encrypted one: decrypt it first)")
        }
        defer { EVP_PKEY_free(key) }
        guard X509_check_private_key(certificate, key) == 1 else {
            ERR_clear_error()
            throw CryptoError("the key in \(keyFile) does not belong to the certificate in \(certificateFile)")
        }
    }
}
