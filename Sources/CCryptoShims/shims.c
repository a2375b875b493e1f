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

/* 400 ms, doubling to at most 2 s. OpenSSL's own timer starts at 1 s and doubles to 60 s: under
   30 % loss each way a lost flight or two stretched the handshake to 10-15 s, or past the
   connect timeout. Twelve retransmissions still end a handshake nobody answers (about 20 s). */
static unsigned int conf_dtls_timer(SSL *ssl, unsigned int previous_us) {
    (void)ssl;
    if (previous_us == 0) return 400000;
    return previous_us >= 1000000 ? 2000000 : previous_us * 2;
}

void conf_dtls_use_short_timer(SSL *ssl) {
    DTLS_set_timer_cb(ssl, conf_dtls_timer);
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
