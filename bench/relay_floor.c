/*
 * The floor under rendezvous-load's burst relay on this machine: the same traffic with no
 * rendezvous at all. A relay process that only moves bytes (epoll, read, write to the partner
 * socket; no HTTP, no WebSocket framing, no JSON, no rooms) and a generator process on loopback
 * TCP, as rendezvous_load.c's burst rounds: CLIENTS connections in rooms of 4, every client sends
 * one 256-byte message at once, the relay writes each to the next client of its room, and the
 * generator times each from its write until the recipient has read it (as rendezvous_load.c does).
 * What this takes is kernel loopback TCP, epoll and two processes on the machine's cores: a
 * rendezvous cannot relay the burst faster than this.
 *
 *     cc -O2 -pthread -o /tmp/relay_floor bench/relay_floor.c && /tmp/relay_floor CLIENTS ROUNDS [THREADS]
 *
 * Prints p50, p99 and max of each round's latencies, and the relay's CPU time over the rounds
 * (from /proc, after its connections were accepted). Each message carries its sender's index,
 * checked on arrival: the relay pairs its sockets with the generator's by accept order.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { MESSAGE = 256, SEATS = 4 };

static void die(const char *what) { perror(what); exit(1); }

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void no_delay(int fd) {
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

/* Reads exactly `size` bytes from a blocking socket. */
static void read_fully(int fd, char *buffer, size_t size) {
    size_t got = 0;
    while (got < size) {
        ssize_t n = read(fd, buffer + got, size - got);
        if (n <= 0) die("read");
        got += (size_t)n;
    }
}

/* The relay: accepts `clients` connections in order, then moves each whole message to the next
 * seat of its room, on `threads` threads sharing one epoll set (one-shot events, re-armed after
 * each read, so that two threads never read one socket). Messages are read whole (they are
 * small and sent whole). */
static int relay_epoll, *relay_fds;

static void *relay_thread(void *unused) {
    (void)unused;
    struct epoll_event events[64];
    char buffer[MESSAGE];
    for (;;) {
        int ready = epoll_wait(relay_epoll, events, 64, -1);
        if (ready < 0 && errno == EINTR) continue;
        for (int e = 0; e < ready; e++) {
            int i = (int)events[e].data.u32;
            ssize_t n = recv(relay_fds[i], buffer, MESSAGE, MSG_WAITALL);
            if (n <= 0) exit(0);
            int next = i / SEATS * SEATS + (i + 1) % SEATS;
            if (write(relay_fds[next], buffer, (size_t)n) != n) die("relay write");
            events[e].events = EPOLLIN | EPOLLONESHOT;
            epoll_ctl(relay_epoll, EPOLL_CTL_MOD, relay_fds[i], &events[e]);
        }
    }
    return NULL;
}

static void relay(int listener, int clients, int threads, int ready_fd) {
    relay_fds = calloc((size_t)clients, sizeof *relay_fds);
    relay_epoll = epoll_create1(0);
    for (int i = 0; i < clients; i++) {
        relay_fds[i] = accept(listener, NULL, NULL);
        if (relay_fds[i] < 0) die("accept");
        no_delay(relay_fds[i]);
        struct epoll_event event = { .events = EPOLLIN | EPOLLONESHOT, .data.u32 = (uint32_t)i };
        if (epoll_ctl(relay_epoll, EPOLL_CTL_ADD, relay_fds[i], &event) < 0) die("epoll_ctl");
    }
    if (write(ready_fd, "r", 1) != 1) die("tell the generator");  /* every connection accepted */
    for (int t = 1; t < threads; t++) {
        pthread_t thread;
        pthread_create(&thread, NULL, relay_thread, NULL);
    }
    relay_thread(NULL);
}

/* The relay's user + system CPU so far (/proc/PID/stat, fields 14 and 15, in clock ticks). */
static double relay_cpu_seconds(pid_t pid) {
    char path[64], text[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *file = fopen(path, "r");
    if (!file || !fgets(text, sizeof text, file)) die("read the relay's /proc stat");
    fclose(file);
    unsigned long user = 0, system = 0;
    char *after_name = strrchr(text, ')');
    if (!after_name || sscanf(after_name + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &user, &system) != 2) die("parse /proc stat");
    return (double)(user + system) / (double)sysconf(_SC_CLK_TCK);
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    int clients = argc > 1 ? atoi(argv[1]) / SEATS * SEATS : 16000;
    if (clients < SEATS) { fprintf(stderr, "relay_floor: CLIENTS must be at least %d\n", SEATS); return 2; }
    int rounds = argc > 2 ? atoi(argv[2]) : 3;
    int threads = argc > 3 ? atoi(argv[3]) : 1;
    struct rlimit limit = { (rlim_t)clients + 64, (rlim_t)clients + 64 };
    if (setrlimit(RLIMIT_NOFILE, &limit) < 0) die("setrlimit (raise the hard limit of descriptors)");

    int listener = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in address = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t length = sizeof address;
    if (bind(listener, (struct sockaddr *)&address, sizeof address) < 0 || listen(listener, 4096) < 0) die("listen");
    getsockname(listener, (struct sockaddr *)&address, &length);

    int ready[2];
    if (pipe(ready) < 0) die("pipe");
    pid_t relay_pid = fork();
    if (relay_pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        relay(listener, clients, threads, ready[1]);
    }
    close(listener);

    int *fds = calloc((size_t)clients, sizeof *fds);
    for (int i = 0; i < clients; i++) {
        /* From 16 source addresses, as rendezvous_load.c connects: one address's ephemeral
         * ports run out across runs (TIME_WAIT). */
        struct sockaddr_in source = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(0x7F010001 + (uint32_t)(i % 16)) };
        fds[i] = socket(AF_INET, SOCK_STREAM, 0);
        if (fds[i] < 0 || bind(fds[i], (struct sockaddr *)&source, sizeof source) < 0) die("bind");
        if (connect(fds[i], (struct sockaddr *)&address, sizeof address) < 0) die("connect");
        no_delay(fds[i]);
    }
    int epoll = epoll_create1(0);
    for (int i = 0; i < clients; i++) {
        struct epoll_event event = { .events = EPOLLIN, .data.u32 = (uint32_t)i };
        if (epoll_ctl(epoll, EPOLL_CTL_ADD, fds[i], &event) < 0) die("epoll_ctl");
    }

    double *latencies = calloc((size_t)clients, sizeof *latencies);
    char accepted;
    if (read(ready[0], &accepted, 1) != 1) die("the relay did not accept every connection");
    double relay_cpu_before = relay_cpu_seconds(relay_pid);
    double *sent = calloc((size_t)clients, sizeof *sent);  /* when the message to client i went */
    char message[MESSAGE];
    memset(message, 'x', sizeof message);
    printf("%d clients in rooms of %d, %d-byte messages, relay on %d thread(s)\n", clients, SEATS, MESSAGE, threads);
    for (int round = 0; round < rounds; round++) {
        for (int i = 0; i < clients; i++) {
            memcpy(message, &i, sizeof i);
            sent[i / SEATS * SEATS + (i + 1) % SEATS] = now_ms();
            if (write(fds[i], message, sizeof message) != (ssize_t)sizeof message) die("write");
        }
        int received = 0;
        struct epoll_event events[256];
        while (received < clients) {
            int ready = epoll_wait(epoll, events, 256, 30000);
            if (ready <= 0) die("no progress in 30 s");
            for (int e = 0; e < ready; e++) {
                char buffer[MESSAGE];
                int i = (int)events[e].data.u32;
                read_fully(fds[i], buffer, sizeof buffer);
                int from;
                memcpy(&from, buffer, sizeof from);
                if ((from / SEATS * SEATS + (from + 1) % SEATS) != i) { fprintf(stderr, "relay_floor: client %d got %d's message\n", i, from); exit(1); }
                latencies[received++] = now_ms() - sent[i];
            }
        }
        qsort(latencies, (size_t)clients, sizeof *latencies, compare);
        printf("  round %d: p50 %.1f ms, p99 %.1f ms, max %.1f ms\n", round + 1,
               latencies[clients / 2], latencies[clients * 99 / 100], latencies[clients - 1]);
        usleep(200000);
    }
    double relay_cpu = relay_cpu_seconds(relay_pid) - relay_cpu_before;
    kill(relay_pid, SIGTERM);
    waitpid(relay_pid, NULL, 0);
    printf("relay CPU over the rounds: %.3f s, %.1f us a message\n", relay_cpu, relay_cpu * 1e6 / ((double)clients * rounds));
    return 0;
}
