#include "conf_crypto_shims.h"
#include <sys/time.h>

EVP_PKEY *conf_generate_p256_key(void) {
    return EVP_EC_gen("P-256");
}

void conf_bio_set_mem_eof_return(BIO *bio, int value) {
    BIO_set_mem_eof_return(bio, value);
}

void conf_dtls_set_mtu(SSL *ssl, long mtu) {
    SSL_set_options(ssl, SSL_OP_NO_QUERY_MTU);
    DTLS_set_link_mtu(ssl, mtu);
}

int conf_dtls_get_timeout(SSL *ssl, long *seconds, long *microseconds) {
    struct timeval tv = {0, 0};
    int running = (int)DTLSv1_get_timeout(ssl, &tv);
    *seconds = tv.tv_sec;
    *microseconds = tv.tv_usec;
    return running;
}

int conf_dtls_handle_timeout(SSL *ssl) {
    return (int)DTLSv1_handle_timeout(ssl);
}

int conf_ssl_ctx_require_dtls12(SSL_CTX *context) {
    return (int)SSL_CTX_set_min_proto_version(context, DTLS1_2_VERSION);
}
