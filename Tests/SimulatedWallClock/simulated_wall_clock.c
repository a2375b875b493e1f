#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <sys/time.h>
#include "simulated_wall_clock.h"

// Per thread: simulations run in parallel, each on its test's thread; -1 is "not simulated".
static __thread long long simulated_microseconds = -1;

void simulated_wall_clock_set(long long microseconds) { simulated_microseconds = microseconds; }

void simulated_wall_clock_clear(void) { simulated_microseconds = -1; }

static int real_gettimeofday(struct timeval *restrict tv, void *restrict tz) {
    static int (*real)(struct timeval *restrict, void *restrict);
    if (real == NULL) real = (int (*)(struct timeval *restrict, void *restrict))dlsym(RTLD_NEXT, "gettimeofday");
    return real(tv, tz);
}

long long simulated_wall_clock_real_now(void) {
    struct timeval tv;
    real_gettimeofday(&tv, NULL);
    return (long long)tv.tv_sec * 1000000 + tv.tv_usec;
}

// Interposes libc's: libssl's calls resolve to this definition, which the linker exports from
// the test executable because a shared library it links (libssl) refers to the symbol.
int gettimeofday(struct timeval *restrict tv, void *restrict tz) {
    long long now = simulated_microseconds;
    if (now < 0 || tv == NULL) return real_gettimeofday(tv, tz);
    tv->tv_sec = (time_t)(now / 1000000);
    tv->tv_usec = (suseconds_t)(now % 1000000);
    return 0;
}
