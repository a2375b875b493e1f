// What libsrtp2 (Debian's, with NSS crypto) costs to protect one RTP packet, per SRTP profile
// conf can agree in DTLS: AES128_CM_SHA1_80 and the AEAD ones of RFC 7714.
//
//     cc -O2 bench/srtp_profiles.c -o /tmp/srtp_profiles -lsrtp2 && /tmp/srtp_profiles
#include <srtp2/srtp.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static double seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static void measure(const char *name, void (*set_policy)(srtp_crypto_policy_t *), int payload) {
    srtp_policy_t policy;
    memset(&policy, 0, sizeof policy);
    set_policy(&policy.rtp);
    set_policy(&policy.rtcp);
    unsigned char key[64];
    for (int i = 0; i < 64; i++) key[i] = (unsigned char)i;
    policy.key = key;
    policy.ssrc.type = ssrc_any_outbound;
    policy.window_size = 1024;
    policy.allow_repeat_tx = 1;
    srtp_t session;
    if (srtp_create(&session, &policy) != srtp_err_status_ok) {
        printf("%s: srtp_create failed\n", name);
        return;
    }
    unsigned char packet[1600];
    const int count = 250000;
    double start = seconds();
    for (int i = 0; i < count; i++) {
        memset(packet, 0, 12);
        packet[0] = 0x80, packet[1] = 111, packet[2] = (unsigned char)(i >> 8), packet[3] = (unsigned char)i, packet[11] = 7;
        int length = 12 + payload;
        if (srtp_protect(session, packet, &length) != srtp_err_status_ok) {
            printf("%s: srtp_protect failed\n", name);
            break;
        }
    }
    printf("%-24s %5d-byte payload: %.2f us a packet\n", name, payload, (seconds() - start) / count * 1e6);
    srtp_dealloc(session);
}

int main(void) {
    srtp_init();
    for (int payload = 100; payload <= 1100; payload += 1000) {
        measure("AES128_CM_SHA1_80", srtp_crypto_policy_set_rtp_default, payload);
        measure("AEAD_AES_128_GCM", srtp_crypto_policy_set_aes_gcm_128_16_auth, payload);
        measure("AEAD_AES_256_GCM", srtp_crypto_policy_set_aes_gcm_256_16_auth, payload);
    }
    return 0;
}
