#define _GNU_SOURCE
#include "conf_crypto_shims.h"
#include <sys/time.h>
#include <time.h>

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

/* ES256 (RFC 7518 section 3.4): ECDSA over SHA-256, the signature as r and s of 32 bytes each
   rather than OpenSSL's DER. */
int conf_es256_sign(EVP_PKEY *key, const unsigned char *input, size_t length, unsigned char out[64]) {
    EVP_MD_CTX *context = EVP_MD_CTX_new();
    if (!context) return 0;
    unsigned char der[80];
    size_t derLength = sizeof der;
    int ok = EVP_DigestSignInit(context, NULL, EVP_sha256(), NULL, key) == 1
        && EVP_DigestSign(context, der, &derLength, input, length) == 1;
    EVP_MD_CTX_free(context);
    if (!ok) return 0;
    const unsigned char *cursor = der;
    ECDSA_SIG *signature = d2i_ECDSA_SIG(NULL, &cursor, (long)derLength);
    if (!signature) return 0;
    ok = BN_bn2binpad(ECDSA_SIG_get0_r(signature), out, 32) == 32 && BN_bn2binpad(ECDSA_SIG_get0_s(signature), out + 32, 32) == 32;
    ECDSA_SIG_free(signature);
    return ok;
}

int conf_p256_public_point(EVP_PKEY *key, unsigned char out[65]) {
    size_t length = 0;
    if (EVP_PKEY_get_octet_string_param(key, OSSL_PKEY_PARAM_PUB_KEY, out, 65, &length) != 1 || length != 65 || out[0] != 4) return 0;
    return 1;
}

static int conf_add_extension(X509 *certificate, STACK_OF(X509_EXTENSION) *stack, int nid, const char *value) {
    X509_EXTENSION *extension = X509V3_EXT_conf_nid(NULL, NULL, nid, value);
    if (!extension) return 0;
    int ok = certificate ? X509_add_ext(certificate, extension, -1) == 1 : sk_X509_EXTENSION_push(stack, extension) > 0;
    if (certificate || !ok) X509_EXTENSION_free(extension);
    return ok;
}

int conf_make_csr(EVP_PKEY *key, const char *subjectAltName, unsigned char **der) {
    X509_REQ *request = X509_REQ_new();
    STACK_OF(X509_EXTENSION) *extensions = sk_X509_EXTENSION_new_null();
    int length = 0;
    if (request && extensions && X509_REQ_set_version(request, 0) == 1 && X509_REQ_set_pubkey(request, key) == 1
        && conf_add_extension(NULL, extensions, NID_subject_alt_name, subjectAltName)
        && X509_REQ_add_extensions(request, extensions) == 1 && X509_REQ_sign(request, key, EVP_sha256()) > 0) {
        *der = NULL;
        length = i2d_X509_REQ(request, der);
    }
    sk_X509_EXTENSION_pop_free(extensions, X509_EXTENSION_free);
    X509_REQ_free(request);
    return length > 0 ? length : 0;
}

X509 *conf_make_acme_challenge_certificate(EVP_PKEY *key, const char *subjectAltName, const unsigned char digest[32]) {
    X509 *certificate = X509_new();
    ASN1_OCTET_STRING *inner = ASN1_OCTET_STRING_new(), *value = ASN1_OCTET_STRING_new();
    ASN1_OBJECT *identifier = OBJ_txt2obj("1.3.6.1.5.5.7.1.31", 1);  /* id-pe-acmeIdentifier, RFC 8737 section 6.1 */
    unsigned char *innerDER = NULL;
    int innerLength = 0, ok = 0;
    if (certificate && inner && value && identifier && ASN1_OCTET_STRING_set(inner, digest, 32) == 1
        && (innerLength = i2d_ASN1_OCTET_STRING(inner, &innerDER)) > 0 && ASN1_OCTET_STRING_set(value, innerDER, innerLength) == 1) {
        X509_EXTENSION *extension = X509_EXTENSION_create_by_OBJ(NULL, identifier, 1, value);
        X509_NAME *name = X509_get_subject_name(certificate);
        ok = extension && X509_add_ext(certificate, extension, -1) == 1
            && X509_set_version(certificate, 2) == 1 && ASN1_INTEGER_set(X509_get_serialNumber(certificate), 1) == 1
            && X509_gmtime_adj(X509_getm_notBefore(certificate), -3600) && X509_gmtime_adj(X509_getm_notAfter(certificate), 7 * 86400)
            && X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)"ACME challenge", -1, -1, 0) == 1
            && X509_set_issuer_name(certificate, name) == 1 && X509_set_pubkey(certificate, key) == 1
            && conf_add_extension(certificate, NULL, NID_subject_alt_name, subjectAltName)
            && X509_sign(certificate, key, EVP_sha256()) > 0;
        X509_EXTENSION_free(extension);
    }
    OPENSSL_free(innerDER);
    ASN1_OBJECT_free(identifier);
    ASN1_OCTET_STRING_free(inner);
    ASN1_OCTET_STRING_free(value);
    if (!ok) { X509_free(certificate); return NULL; }
    return certificate;
}

void conf_openssl_free(void *pointer) {
    OPENSSL_free(pointer);
}

int conf_certificate_validity(X509 *certificate, long *notBefore, long *notAfter) {
    struct tm before, after;
    if (ASN1_TIME_to_tm(X509_get0_notBefore(certificate), &before) != 1 || ASN1_TIME_to_tm(X509_get0_notAfter(certificate), &after) != 1) return 0;
    *notBefore = (long)timegm(&before);
    *notAfter = (long)timegm(&after);
    return 1;
}
