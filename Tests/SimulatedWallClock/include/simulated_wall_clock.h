#ifndef SIMULATED_WALL_CLOCK_H
#define SIMULATED_WALL_CLOCK_H

/// The wall clock OpenSSL reads for DTLS's retransmission timer (gettimeofday, which OpenSSL 3.0
/// offers no way to replace), as a simulation's: while set on a thread, gettimeofday there
/// returns `microseconds` since the epoch. Only the test executable defines gettimeofday this
/// way; conf itself reads the real one.
void simulated_wall_clock_set(long long microseconds);

/// gettimeofday on this thread reads the real clock again.
void simulated_wall_clock_clear(void);

/// The real clock, in microseconds since the epoch.
long long simulated_wall_clock_real_now(void);

#endif
