#ifndef CONF_CRYPTO_SHIMS_H
#define CONF_CRYPTO_SHIMS_H
// Wrappers for OpenSSL macros and variadic calls Swift cannot import.
#include <openssl/ssl.h>
#include <openssl/evp.h>
#include <openssl/x509v3.h>
#include <openssl/core_names.h>

/// A new P-256 key (EVP_EC_gen is a variadic macro).
EVP_PKEY *conf_generate_p256_key(void);

/// BIO_set_mem_eof_return: make an empty memory BIO read as "retry", not end of file.
void conf_bio_set_mem_eof_return(BIO *bio, int value);

/// SSL_CTX_set_min_proto_version(ctx, DTLS1_2_VERSION): no DTLS 1.0.
int conf_ssl_ctx_require_dtls12(SSL_CTX *context);

/// DTLS_set_link_mtu plus SSL_OP_NO_QUERY_MTU: there is no socket to ask.
void conf_dtls_set_mtu(SSL *ssl, long mtu);

/// DTLS_set_timer_cb with conf's retransmission schedule: 400 ms doubling to 2 s.
void conf_dtls_use_short_timer(SSL *ssl);

/// DTLSv1_get_timeout: 1 and the time left when a retransmission timer runs, else 0.
int conf_dtls_get_timeout(SSL *ssl, long *seconds, long *microseconds);

/// DTLSv1_handle_timeout.
int conf_dtls_handle_timeout(SSL *ssl);

/// ES256 (ECDSA P-256 over SHA-256) of `input`: r then s, 32 bytes each. 1 when signed.
int conf_es256_sign(EVP_PKEY *key, const unsigned char *input, size_t length, unsigned char out[64]);

/// The public point of a P-256 key, uncompressed (0x04, x, y). 1 when it is one.
int conf_p256_public_point(EVP_PKEY *key, unsigned char out[65]);

/// A DER certificate signing request for `subjectAltName` ("IP:192.0.2.1" or "DNS:example.org")
/// signed by `key`; its length (0 on failure). Free `*der` with conf_openssl_free.
int conf_make_csr(EVP_PKEY *key, const char *subjectAltName, unsigned char **der);

/// A tls-alpn-01 certificate (RFC 8737): self-signed by `key`, for `subjectAltName`, with the
/// critical acmeIdentifier extension holding `digest` (SHA-256 of the key authorization).
X509 *conf_make_acme_challenge_certificate(EVP_PKEY *key, const char *subjectAltName, const unsigned char digest[32]);

/// OPENSSL_free (a macro).
void conf_openssl_free(void *pointer);

/// A certificate's validity as seconds since 1970; 1 when readable.
int conf_certificate_validity(X509 *certificate, long *notBefore, long *notAfter);

#endif
