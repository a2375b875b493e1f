#ifndef CONF_CRYPTO_SHIMS_H
#define CONF_CRYPTO_SHIMS_H
// Wrappers for OpenSSL macros and variadic calls Swift cannot import.
#include <openssl/ssl.h>
#include <openssl/evp.h>

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

#endif
