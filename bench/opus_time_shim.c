/* Preloaded into a conf participant by bench/audio_cpu_ab.py --split-opus: times libopus's
 * opus_encode and opus_decode in the calling thread's CPU clock and, at exit, writes one line
 * "PID encode_seconds decode_seconds encodes decodes" to $OPUS_TIME_DIR/PID. Nothing else is
 * changed: each call goes to the real function (RTLD_NEXT).
 *
 *     cc -O2 -shared -fPIC -o opus_time_shim.so bench/opus_time_shim.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <opus/opus.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* Encoding and decoding run on conf's event-loop thread only, so plain counters do. */
static double encode_seconds, decode_seconds;
static long encodes, decodes;

static double thread_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

opus_int32 opus_encode(OpusEncoder *encoder, const opus_int16 *pcm, int frame_size, unsigned char *data, opus_int32 max_bytes) {
    static opus_int32 (*real)(OpusEncoder *, const opus_int16 *, int, unsigned char *, opus_int32);
    if (!real) real = (opus_int32 (*)(OpusEncoder *, const opus_int16 *, int, unsigned char *, opus_int32))dlsym(RTLD_NEXT, "opus_encode");
    double start = thread_seconds();
    opus_int32 result = real(encoder, pcm, frame_size, data, max_bytes);
    encode_seconds += thread_seconds() - start;
    encodes++;
    return result;
}

int opus_decode(OpusDecoder *decoder, const unsigned char *data, opus_int32 length, opus_int16 *pcm, int frame_size, int decode_fec) {
    static int (*real)(OpusDecoder *, const unsigned char *, opus_int32, opus_int16 *, int, int);
    if (!real) real = (int (*)(OpusDecoder *, const unsigned char *, opus_int32, opus_int16 *, int, int))dlsym(RTLD_NEXT, "opus_decode");
    double start = thread_seconds();
    int result = real(decoder, data, length, pcm, frame_size, decode_fec);
    decode_seconds += thread_seconds() - start;
    decodes++;
    return result;
}

__attribute__((destructor)) static void report(void) {
    const char *directory = getenv("OPUS_TIME_DIR");
    if (!directory || (encodes == 0 && decodes == 0)) return;
    char path[4096];
    snprintf(path, sizeof path, "%s/%d", directory, (int)getpid());
    FILE *out = fopen(path, "w");
    if (!out) return;
    fprintf(out, "%d %.6f %.6f %ld %ld\n", (int)getpid(), encode_seconds, decode_seconds, encodes, decodes);
    fclose(out);
}
