/*
 * Load generator for `conf rendezvous`, in C: the same phases, messages, figures and output as
 * bench/rendezvous_load.py, at a fraction of its CPU, so that on a small machine the burst-relay
 * figures measure the server rather than the generator. Run through bench/rendezvous-load.sh.
 *
 *     cc -O2 -o rendezvous_load bench/rendezvous_load.c
 *     rendezvous_load PORT ROOMS SERVER_PIDS [PROCESSES]
 *
 * SERVER_PIDS: the server's process ids, comma-separated (RSS is their sum). PROCESSES (default 1):
 * load generators, each a process with its share of the rooms, connecting from 16 addresses of
 * its own loopback network (127.1.0.1-16, 127.2.0.1-16, ...: one address has about 28,000
 * ephemeral ports towards one server port). They go through the phases together (a barrier through pipes to the parent):
 *   1 create the rooms (POST /v1/rooms, 64 in flight per generator)
 *   2 fill them seat by seat, 4 clients a room (WebSocket open + join -> joined, 64 in flight)
 *   3-5 three burst rounds: every client signals the next in its room at once
 *   6 probes, by the first generator alone: 200 joins, then 150 relays, one at a time
 *   7-8 everyone still connected while the parent reads the server's RSS; then the figures
 * Joined clients ping every 15 s, a fifteenth of them each second, or the server drops them.
 *
 * One thread per generator, epoll, non-blocking sockets; each connection keeps only the bytes of
 * a frame it has not finished reading or could not yet send, both bounded. Any failure (refused
 * connection, error message, unexpected close, 30 s without progress) ends the run with a message
 * and exit status 1. Latencies are CLOCK_MONOTONIC, taken when the reply's bytes were read.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum {
    GATE = 64,            /* creations or joins in flight per generator */
    SEATS = 4,
    RELAY_ROUNDS = 3,
    PROBE_JOINS = 200,
    PROBE_RELAYS = 150,   /* under the per-connection burst allowance (200) */
    PING_SPREAD = 15,     /* each client pings every 15 ticks of 1 s */
    PHASES = 7,           /* create, fill, 3 relay rounds, probes, results ready */
    MAX_PROCESSES = 254,  /* source networks 127.1.0.0/24 ... 127.254.0.0/24 */
    MAX_MESSAGE = 128 * 1024,      /* largest server message taken (the protocol's limit: 64 KiB) */
    MAX_HEAD = 8192,               /* the 101 response's head */
    MAX_HTTP_RESPONSE = 16384,     /* a POST /v1/rooms response, head and body */
    MAX_OUT = 65536,               /* bytes queued for one socket the server is not reading */
    SCRATCH = MAX_MESSAGE + 14 + 65536,
    MAX_EVENTS = 512,
};
static const double WAIT_LIMIT_S = 30;  /* as the Python's expect(): 30 s without a reply fails */
static const char *const HOST = "127.0.0.1";

/* ---- failures, time, randomness ---- */

static char who[64] = "";

/* Failures may quote what the server sent: control characters (C0, DEL, C1 as UTF-8) are shown
 * as '?', so that nothing from the network acts on the terminal. */
static _Noreturn void fail(const char *format, ...) {
    char line[2048];
    va_list args;
    va_start(args, format);
    vsnprintf(line, sizeof line, format, args);
    va_end(args);
    for (unsigned char *p = (unsigned char *)line; *p; p++) {
        if (*p < 0x20 || *p == 0x7f) *p = '?';
        else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) p[0] = p[1] = '?';
    }
    fprintf(stderr, "rendezvous_load%s: %s\n", who, line);
    exit(1);
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Masking keys and Sec-WebSocket-Keys from xorshift64*, seeded by getrandom: they guard against
 * caches between client and server (RFC 6455 10.3), of which loopback has none. */
static uint64_t prng_state;

static uint32_t prng(void) {
    prng_state ^= prng_state >> 12;
    prng_state ^= prng_state << 25;
    prng_state ^= prng_state >> 27;
    return (uint32_t)((prng_state * 0x2545F4914F6CDD1DULL) >> 32);
}

static void base64(const unsigned char *in, size_t n, char *out) {
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0) | (i + 2 < n ? in[i + 2] : 0);
        out[o++] = alphabet[v >> 18 & 63];
        out[o++] = alphabet[v >> 12 & 63];
        out[o++] = i + 1 < n ? alphabet[v >> 6 & 63] : '=';
        out[o++] = i + 2 < n ? alphabet[v & 63] : '=';
    }
    out[o] = 0;
}

/* ---- a little JSON: the string members of a top-level object ---- */

static void skip_space(const char *s, size_t n, size_t *p) {
    while (*p < n && (s[*p] == ' ' || s[*p] == '\t' || s[*p] == '\n' || s[*p] == '\r')) ++*p;
}

/* Reads the string at s[*p] == '"' into out, when out is not NULL (escapes kept as the escaped
 * character, \uXXXX as '?'). False when it does not end; *fits false when out was too small. */
static bool read_string(const char *s, size_t n, size_t *p, char *out, size_t cap, bool *fits) {
    size_t o = 0;
    if (fits) *fits = true;
    for (++*p; *p < n; ++*p) {
        char ch = s[*p];
        if (ch == '"') {
            ++*p;
            if (out) out[o < cap ? o : 0] = 0;
            return true;
        }
        if (ch == '\\') {
            if (++*p >= n) return false;
            ch = s[*p];
            if (ch == 'u') {
                if (*p + 4 >= n) return false;
                *p += 4;
                ch = '?';
            }
        }
        if (out && o + 1 < cap) out[o++] = ch;
        else if (out) *fits = false, o = cap;
    }
    return false;
}

/* Skips one value of any kind (nested objects and arrays included). */
static bool skip_value(const char *s, size_t n, size_t *p) {
    if (*p >= n) return false;
    if (s[*p] == '"') return read_string(s, n, p, NULL, 0, NULL);
    if (s[*p] == '{' || s[*p] == '[') {
        int depth = 0;
        while (*p < n) {
            char ch = s[*p];
            if (ch == '"') {
                if (!read_string(s, n, p, NULL, 0, NULL)) return false;
                continue;
            }
            if (ch == '{' || ch == '[') depth++;
            if (ch == '}' || ch == ']') depth--;
            ++*p;
            if (depth == 0) return true;
        }
        return false;
    }
    size_t start = *p;
    while (*p < n && !strchr(",}] \t\r\n", s[*p])) ++*p;
    return *p > start;
}

/* Copies the top-level string members named keys[i] into values[i] (each cap bytes; "" when
 * absent or not a string). False when s is not a JSON object or a wanted member does not fit. */
static bool json_strings(const char *s, size_t n, int count, const char *const keys[], char *values[], size_t cap) {
    for (int i = 0; i < count; i++) values[i][0] = 0;
    size_t p = 0;
    skip_space(s, n, &p);
    if (p >= n || s[p] != '{') return false;
    p++;
    skip_space(s, n, &p);
    if (p < n && s[p] == '}') return true;
    for (;;) {
        char key[32];
        bool fits;
        skip_space(s, n, &p);
        if (p >= n || s[p] != '"' || !read_string(s, n, &p, key, sizeof key, &fits)) return false;
        if (!fits) key[0] = 0;  /* longer than any key wanted */
        skip_space(s, n, &p);
        if (p >= n || s[p] != ':') return false;
        p++;
        skip_space(s, n, &p);
        int wanted = -1;
        for (int i = 0; i < count; i++)
            if (strcmp(key, keys[i]) == 0) wanted = i;
        if (wanted >= 0 && p < n && s[p] == '"') {
            if (!read_string(s, n, &p, values[wanted], cap, &fits) || !fits) return false;
        } else if (!skip_value(s, n, &p)) {
            return false;
        }
        skip_space(s, n, &p);
        if (p < n && s[p] == ',') {
            p++;
            continue;
        }
        return p < n && s[p] == '}';
    }
}

/* Ids, pins and room ids go into our JSON and URLs unescaped: they must be plain. */
static bool plain(const char *text, size_t min, size_t max) {
    size_t n = strlen(text);
    if (n < min || n > max) return false;
    for (size_t i = 0; i < n; i++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_", text[i])) return false;
    return true;
}

/* ---- connections ---- */

typedef struct Room {
    char id[40];
    char pin[40];
} Room;

typedef enum { HTTP_POST, WEBSOCKET } Kind;
typedef enum { CONNECTING, HEAD, OPEN, CLOSING } State;

typedef struct Conn Conn;
struct Conn {
    int fd;
    Kind kind;
    State state;
    unsigned char *pending;   /* the start of a frame (or head, or response) not complete yet */
    size_t npending;
    unsigned char *out;       /* bytes the socket did not take yet */
    size_t nout;
    bool watching_out;
    unsigned char *fragments; /* a text message arriving in several frames */
    size_t nfragments;
    bool fragmented;
    Room *room;               /* the room joined, or the one a POST fills in */
    const char *name;
    char id[16];              /* the participant id given in `joined` */
    double start;             /* connect() of a join */
    double joined_at;         /* when `joined` was read */
    bool joining;
    double signal_sent;       /* when the signal this client waits for was sent; < 0: none */
    void (*done)(Conn *);     /* a POST answered or a join joined */
};

static int port;
static const char *source;    /* this generator's loopback network, e.g. "127.1.0" */
/* Each generator's connections come from SOURCES addresses of its own /24, in turn: bind() with
 * port 0 searches the ephemeral range for a port free on that address, which with ~20,000 taken
 * on one address cost more kernel time than the server's whole work (and stretched the fill). */
enum { SOURCES = 16 };
static unsigned next_source;
static int epoll_fd = -1;
static int up_fd = -1, down_fd = -1;
static unsigned char scratch[SCRATCH];

typedef struct Samples {
    double *values;
    int count;
} Samples;

static void add(Samples *s, double value) { s->values[s->count++] = value; }

/* Where the relayed signals' latencies go (the burst rounds or the probe), and how many are due. */
static Samples *signal_sink;
static int signals_due;

static const char *describe(const Conn *c) {
    static char text[96];
    if (c->kind == HTTP_POST) return "POST /v1/rooms";
    snprintf(text, sizeof text, "client %s of room %s", c->id[0] ? c->id : c->name, c->room->id);
    return text;
}

static void watch(Conn *c, uint32_t events) {
    struct epoll_event e = {.events = events, .data.ptr = c};
    if (epoll_ctl(epoll_fd, EPOLL_CTL_MOD, c->fd, &e) != 0) fail("epoll_ctl: %s", strerror(errno));
}

static void conn_free(Conn *c) {
    close(c->fd);  /* leaves the epoll set with it */
    free(c->pending);
    free(c->out);
    free(c->fragments);
    free(c);
}

static void queue_out(Conn *c, const unsigned char *data, size_t n) {
    if (c->nout + n > MAX_OUT) fail("%s: over %d bytes wait to be sent: the server does not read", describe(c), MAX_OUT);
    unsigned char *grown = realloc(c->out, c->nout + n);
    if (!grown) fail("out of memory");
    c->out = grown;
    memcpy(c->out + c->nout, data, n);
    c->nout += n;
}

static void conn_write(Conn *c, const void *data, size_t n) {
    const unsigned char *p = data;
    if (c->nout == 0 && c->state != CONNECTING) {
        ssize_t sent = send(c->fd, p, n, MSG_NOSIGNAL);
        if (sent < 0 && errno != EAGAIN && errno != EWOULDBLOCK) fail("%s: send: %s", describe(c), strerror(errno));
        if (sent > 0) {
            p += sent;
            n -= (size_t)sent;
        }
        if (n == 0) return;
    }
    queue_out(c, p, n);
    if (c->state != CONNECTING && !c->watching_out) {
        watch(c, EPOLLIN | EPOLLOUT);
        c->watching_out = true;
    }
}

static void flush_out(Conn *c) {
    ssize_t sent = send(c->fd, c->out, c->nout, MSG_NOSIGNAL);
    if (sent < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK) return;
        fail("%s: send: %s", describe(c), strerror(errno));
    }
    memmove(c->out, c->out + sent, c->nout - (size_t)sent);
    c->nout -= (size_t)sent;
    if (c->nout == 0 && c->watching_out) {
        watch(c, EPOLLIN);
        c->watching_out = false;
    }
}

/* A new connection from this generator's address; `request` is sent once it is connected. */
static Conn *conn_open(Kind kind, const char *request, size_t n) {
    Conn *c = calloc(1, sizeof *c);
    if (!c) fail("out of memory");
    c->kind = kind;
    c->state = CONNECTING;
    c->signal_sent = -1;
    c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (c->fd < 0) fail("socket: %s (descriptor limit %s?)", strerror(errno), errno == EMFILE ? "reached" : "");
    int one = 1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);  /* as asyncio's transports */
    struct sockaddr_in from = {.sin_family = AF_INET}, to = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    char address[24];
    snprintf(address, sizeof address, "%s.%u", source, 1 + next_source++ % SOURCES);
    inet_pton(AF_INET, address, &from.sin_addr);
    inet_pton(AF_INET, HOST, &to.sin_addr);
    if (bind(c->fd, (struct sockaddr *)&from, sizeof from) != 0)
        fail("bind to %s: %s (out of ephemeral ports? use more generators)", address, strerror(errno));
    if (connect(c->fd, (struct sockaddr *)&to, sizeof to) != 0 && errno != EINPROGRESS)
        fail("connect to %s:%d from %s: %s", HOST, port, address, strerror(errno));
    struct epoll_event e = {.events = EPOLLIN | EPOLLOUT, .data.ptr = c};
    if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, c->fd, &e) != 0) fail("epoll_ctl: %s", strerror(errno));
    queue_out(c, (const unsigned char *)request, n);
    return c;
}

static void connected(Conn *c) {
    int error = 0;
    socklen_t size = sizeof error;
    getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &error, &size);
    if (error) fail("connect to %s:%d from %s.0/24: %s", HOST, port, source, strerror(error));
    c->state = HEAD;
    c->watching_out = true;
    flush_out(c);
    if (c->nout == 0) {
        watch(c, EPOLLIN);
        c->watching_out = false;
    }
}

/* ---- WebSocket (RFC 6455): masked client frames, server frames parsed ---- */

static void ws_send(Conn *c, const char *text, size_t n) {
    unsigned char frame[1024];
    size_t h = 2;
    if (n > sizeof frame - 8) fail("message of %zu bytes too large for this generator", n);
    frame[0] = 0x81;  /* FIN, text */
    if (n < 126) {
        frame[1] = (unsigned char)(0x80 | n);
    } else {
        frame[1] = 0x80 | 126;
        frame[2] = (unsigned char)(n >> 8);
        frame[3] = (unsigned char)n;
        h = 4;
    }
    uint32_t key = prng();
    memcpy(frame + h, &key, 4);
    for (size_t i = 0; i < n; i++) frame[h + 4 + i] = (unsigned char)text[i] ^ frame[h + (i & 3)];
    conn_write(c, frame, h + 4 + n);
}

static void ws_send_control(Conn *c, unsigned opcode, const unsigned char *payload, size_t n) {
    unsigned char frame[2 + 4 + 125];
    frame[0] = (unsigned char)(0x80 | opcode);
    frame[1] = (unsigned char)(0x80 | n);
    uint32_t key = prng();
    memcpy(frame + 2, &key, 4);
    for (size_t i = 0; i < n; i++) frame[6 + i] = payload[i] ^ frame[2 + (i & 3)];
    conn_write(c, frame, 6 + n);
}

static void on_text(Conn *c, const char *text, size_t n, double at) {
    char type[32], you[32];
    char *values[] = {type, you};
    int shown = n < 300 ? (int)n : 300;  /* text is not NUL-terminated */
    if (!json_strings(text, n, 2, (const char *const[]){"type", "you"}, values, sizeof you))
        fail("%s: the server sent what is not a JSON object we can read: %.*s", describe(c), shown, text);
    if (strcmp(type, "joined") == 0) {
        if (!c->joining) fail("%s: `joined` it did not ask for", describe(c));
        if (!plain(you, 1, sizeof c->id - 1)) fail("%s: `joined` with a strange id: %.*s", describe(c), shown, text);
        strcpy(c->id, you);
        c->joined_at = at;
        c->joining = false;
        c->done(c);
    } else if (strcmp(type, "signal") == 0) {
        if (c->signal_sent < 0) fail("%s: a signal nobody sent it: %.*s", describe(c), shown, text);
        add(signal_sink, (at - c->signal_sent) * 1000);
        c->signal_sent = -1;
        signals_due--;
    } else if (strcmp(type, "error") == 0) {
        fail("%s: the server answered an error: %.*s", describe(c), shown, text);
    }
    /* pong, peer-joined, peer-left: nothing to do, as in the Python */
}

static void on_frame(Conn *c, bool fin, unsigned opcode, const unsigned char *payload, size_t n, double at) {
    if (opcode >= 8 && (!fin || n > 125)) fail("%s: a control frame fragmented or over 125 bytes", describe(c));
    switch (opcode) {
    case 0x1:
    case 0x0:
        if ((opcode == 0x1) == c->fragmented) fail("%s: a %s frame out of place", describe(c), opcode ? "text" : "continuation");
        if (fin && !c->fragmented) {
            on_text(c, (const char *)payload, n, at);
            return;
        }
        if (c->nfragments + n > MAX_MESSAGE) fail("%s: a message over %d bytes", describe(c), MAX_MESSAGE);
        unsigned char *grown = realloc(c->fragments, c->nfragments + n + 1);
        if (!grown) fail("out of memory");
        c->fragments = grown;
        memcpy(c->fragments + c->nfragments, payload, n);
        c->nfragments += n;
        c->fragmented = !fin;
        if (fin) {
            on_text(c, (const char *)c->fragments, c->nfragments, at);
            free(c->fragments);
            c->fragments = NULL;
            c->nfragments = 0;
        }
        return;
    case 0x8: {
        if (c->state == CLOSING) return;
        unsigned code = n >= 2 ? (unsigned)payload[0] << 8 | payload[1] : 1005;
        fail("%s: the server closed the WebSocket (%u%s%.*s)", describe(c), code, n > 2 ? ", " : "",
             (int)(n > 2 ? n - 2 : 0), (const char *)payload + 2);
    }
    case 0x9:
        ws_send_control(c, 0xA, payload, n);
        return;
    case 0xA:
        return;
    default:
        fail("%s: a frame of opcode %u (binary or unknown)", describe(c), opcode);
    }
}

/* Handles the complete frames at the start of buf; returns how many bytes they took. */
static size_t on_frames(Conn *c, const unsigned char *buf, size_t len, double at) {
    size_t off = 0;
    while (len - off >= 2) {
        const unsigned char *p = buf + off;
        if (p[0] & 0x70) fail("%s: a frame with reserved bits set", describe(c));
        if (p[1] & 0x80) fail("%s: a masked frame from the server", describe(c));
        uint64_t n = p[1] & 0x7F;
        size_t h = 2;
        if (n == 126) {
            if (len - off < 4) break;
            n = (uint64_t)p[2] << 8 | p[3];
            h = 4;
        } else if (n == 127) {
            if (len - off < 10) break;
            n = 0;
            for (int i = 2; i < 10; i++) n = n << 8 | p[i];
            h = 10;
        }
        if (n > MAX_MESSAGE) fail("%s: a frame of %llu bytes, over the %d this generator takes", describe(c), (unsigned long long)n, MAX_MESSAGE);
        if (len - off - h < n) break;
        on_frame(c, p[0] & 0x80, p[0] & 0x0F, p + h, (size_t)n, at);
        off += h + (size_t)n;
    }
    return off;
}

static void on_http_response(Conn *c, const char *text, size_t n) {
    char status[128];
    const char *body = memmem(text, n, "\r\n\r\n", 4);
    size_t line = strcspn(text, "\r\n");
    snprintf(status, sizeof status, "%.*s", (int)(line < n ? line : n), text);
    int code = 0;
    if (!body || sscanf(status, "HTTP/1.%*d %d", &code) != 1 || code < 200 || code > 299)
        fail("POST /v1/rooms: %s: %.300s", status[0] ? status : "no response", body ? body + 4 : "");
    body += 4;
    char *values[] = {c->room->id, c->room->pin};
    size_t size = (size_t)(text + n - body);
    if (!json_strings(body, size, 2, (const char *const[]){"room", "pin"}, values, sizeof c->room->pin)
        || !plain(c->room->id, 1, sizeof c->room->pin - 1) || !plain(c->room->pin, 1, sizeof c->room->pin - 1))
        fail("POST /v1/rooms: an answer without a plain room and pin: %.300s", body);
    c->done(c);
}

static void keep_pending(Conn *c, const unsigned char *data, size_t n) {
    free(c->pending);
    c->pending = NULL;
    c->npending = n;
    if (n == 0) return;
    c->pending = malloc(n);
    if (!c->pending) fail("out of memory");
    memcpy(c->pending, data, n);
}

static void on_readable(Conn *c) {
    size_t have = c->npending;
    ssize_t got = read(c->fd, scratch + have, sizeof scratch - have - 1);
    double at = now();
    if (got < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK) return;
        fail("%s: read: %s", describe(c), strerror(errno));
    }
    if (have) memcpy(scratch, c->pending, have);
    size_t len = have + (size_t)got;
    scratch[len] = 0;
    if (c->kind == HTTP_POST) {
        if (got > 0) {
            if (len > MAX_HTTP_RESPONSE) fail("POST /v1/rooms: a response over %d bytes", MAX_HTTP_RESPONSE);
            keep_pending(c, scratch, len);
            return;
        }
        on_http_response(c, (const char *)scratch, len);
        conn_free(c);
        return;
    }
    if (got == 0) fail("%s: the server closed the connection", describe(c));
    size_t off = 0;
    if (c->state == HEAD) {
        const unsigned char *end = memmem(scratch, len, "\r\n\r\n", 4);
        if (!end) {
            if (len > MAX_HEAD) fail("%s: a response head over %d bytes", describe(c), MAX_HEAD);
            keep_pending(c, scratch, len);
            return;
        }
        if (strncmp((const char *)scratch, "HTTP/1.1 101", 12) != 0)
            fail("%s: the upgrade was refused: %.*s", describe(c), (int)strcspn((const char *)scratch, "\r\n"), scratch);
        c->state = OPEN;
        off = (size_t)(end + 4 - scratch);
        char join[256];
        int n = snprintf(join, sizeof join, "{\"type\":\"join\",\"room\":\"%s\",\"pin\":\"%s\",\"name\":\"%s\"}",
                         c->room->id, c->room->pin, c->name);
        ws_send(c, join, (size_t)n);
    }
    off += on_frames(c, scratch + off, len - off, at);
    keep_pending(c, scratch + off, len - off);
}

/* ---- the event loop ---- */

static Conn **joined;          /* joined clients, in join order, for the pings */
static int njoined;
static bool pinging;
static double next_ping;
static int ping_tick;
static int barrier_due;

static void ping_some(void) {
    /* A fifteenth of the clients each second, as clients started at different times would. */
    ping_tick++;
    for (int i = ping_tick % PING_SPREAD; i < njoined; i += PING_SPREAD) ws_send(joined[i], "{\"type\":\"ping\"}", 15);
    next_ping = now() + 1;
}

static void on_event(Conn *c, uint32_t events) {
    if (c == NULL) {  /* the parent released a barrier */
        char byte;
        ssize_t got = read(down_fd, &byte, 1);
        if (got == 1) barrier_due = 0;
        else if (got == 0 || (errno != EAGAIN && errno != EINTR)) fail("the parent process is gone");
        return;
    }
    if (c->state == CONNECTING) {
        if (events & (EPOLLOUT | EPOLLERR | EPOLLHUP)) connected(c);
        return;
    }
    if ((events & EPOLLOUT) && c->nout) flush_out(c);
    if (events & (EPOLLIN | EPOLLERR | EPOLLHUP)) on_readable(c);
}

/* Runs the loop (and the pings) until *due is 0. With a watchdog, 30 s in which *due does not
 * move fail the run; without one (the barriers) it waits as long as the other generators take. */
static void run_while(const int *due, const char *what, bool watchdog) {
    struct epoll_event events[MAX_EVENTS];
    int seen = *due;
    double progress = now();
    while (*due > 0) {
        double t = now();
        if (pinging && t >= next_ping) ping_some();
        if (*due != seen) {
            seen = *due;
            progress = t;
        }
        if (watchdog && t - progress > WAIT_LIMIT_S)
            fail("nothing came in %.0f s while waiting for %s (%d outstanding)", WAIT_LIMIT_S, what, *due);
        double until = pinging ? next_ping : t + 3600;
        if (watchdog && progress + WAIT_LIMIT_S < until) until = progress + WAIT_LIMIT_S;
        int ms = until > t ? (int)((until - t) * 1000) + 1 : 0;
        int n = epoll_wait(epoll_fd, events, MAX_EVENTS, ms);
        if (n < 0) {
            if (errno == EINTR) continue;
            fail("epoll_wait: %s", strerror(errno));
        }
        for (int i = 0; i < n; i++) on_event(events[i].data.ptr, events[i].events);
    }
}

/* Waits until every generator reached this point (the parent counts them). */
static void phase(void) {
    char byte = 1;
    if (write(up_fd, &byte, 1) != 1) fail("the parent process is gone");
    barrier_due = 1;
    run_while(&barrier_due, "the other generators", false);
}

/* ---- the generator's work ---- */

static char sdp[201];         /* "x" * 200 */

static Room *rooms;
static int nrooms, first_room;
static Conn **seats;          /* room r's seat s: seats[r * SEATS + s] */
static Samples join_ms, relay_ms, probe_join_ms, probe_relay_ms;

static Conn *post_room(Room *room, const char *name, void (*done)(Conn *)) {
    char body[128], request[512];
    int nbody = snprintf(body, sizeof body, "{\"name\": \"%s\"}", name);
    int n = snprintf(request, sizeof request, "POST /v1/rooms HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"
                     "Content-Length: %d\r\nConnection: close\r\n\r\n%s", HOST, nbody, body);
    Conn *c = conn_open(HTTP_POST, request, (size_t)n);
    c->room = room;
    c->done = done;
    return c;
}

/* Opens a WebSocket to the room and joins it as `name`; done(c) runs when `joined` comes. */
static Conn *ws_join(Room *room, const char *name, void (*done)(Conn *)) {
    unsigned char nonce[16];
    char key[25], request[512];
    for (int i = 0; i < 16; i += 4) {
        uint32_t r = prng();
        memcpy(nonce + i, &r, 4);
    }
    base64(nonce, sizeof nonce, key);
    /* LOAD_PLAIN_WS=1: /v1/ws without ?room=, as a simple client writes it: a worker that does not
       hold the room hands the open connection over when the join comes. */
    static int plain = -1;
    if (plain < 0) plain = getenv("LOAD_PLAIN_WS") != NULL && strcmp(getenv("LOAD_PLAIN_WS"), "1") == 0;
    int n = snprintf(request, sizeof request, "GET /v1/ws%s%s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                     "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n", plain ? "" : "?room=", plain ? "" : room->id, HOST, key);
    double start = now();
    Conn *c = conn_open(WEBSOCKET, request, (size_t)n);
    c->start = start;
    c->room = room;
    c->name = name;
    c->joining = true;
    c->done = done;
    return c;
}

static void send_signal(Conn *from, Conn *to, int seq) {
    char text[400];
    to->signal_sent = now();
    int n = snprintf(text, sizeof text, "{\"type\":\"signal\",\"to\":\"%s\",\"payload\":{\"sdp\":\"%s\",\"seq\":%d}}", to->id, sdp, seq);
    ws_send(from, text, (size_t)n);
}

/* At most GATE creations, then GATE joins, in flight; each finished one starts the next. */
typedef struct Work {
    int next, in_flight, due, seat;
} Work;
static Work work;

static void create_more(void);
static void created(Conn *c) {
    (void)c;
    work.in_flight--;
    work.due--;
    create_more();
}

static void create_more(void) {
    for (; work.in_flight < GATE && work.next < nrooms; work.next++, work.in_flight++) {
        char name[64];
        snprintf(name, sizeof name, "bench room %d", first_room + work.next);
        post_room(&rooms[work.next], name, created);
    }
}

static const char *const seat_names[SEATS] = {"p0", "p1", "p2", "p3"};

static void join_more(void);
static void seated(Conn *c) {
    add(&join_ms, (c->joined_at - c->start) * 1000);
    joined[njoined++] = c;
    work.in_flight--;
    work.due--;
    join_more();
}

static void join_more(void) {
    for (; work.in_flight < GATE && work.next < nrooms; work.next++, work.in_flight++)
        seats[work.next * SEATS + work.seat] = ws_join(&rooms[work.next], seat_names[work.seat], seated);
}

static int one_due;
static void one_done(Conn *c) {
    (void)c;
    one_due--;
}

static void close_flushed(Conn *c) {
    while (c->nout) {
        struct pollfd out = {.fd = c->fd, .events = POLLOUT};
        if (poll(&out, 1, (int)(WAIT_LIMIT_S * 1000)) <= 0) fail("%s: could not send its last message", describe(c));
        flush_out(c);
    }
    conn_free(c);
}

/* Probes while the server holds every connection: one join or one relay at a time. */
static void probe(void) {
    Room probe_rooms[2];
    for (int i = 0; i < 2; i++) {
        char name[16];
        snprintf(name, sizeof name, "probe %d", i);
        one_due = 1;
        post_room(&probe_rooms[i], name, one_done);
        run_while(&one_due, "a probe room", true);
    }
    for (int i = 0; i < PROBE_JOINS; i++) {
        one_due = 1;
        Conn *c = ws_join(&probe_rooms[0], "probe", one_done);
        run_while(&one_due, "a probe's join", true);
        add(&probe_join_ms, (c->joined_at - c->start) * 1000);
        c->state = CLOSING;
        ws_send(c, "{\"type\":\"leave\"}", 16);
        close_flushed(c);
    }
    Conn *pair[2];
    for (int i = 0; i < 2; i++) {
        one_due = 1;
        pair[i] = ws_join(&probe_rooms[1], "probe", one_done);
        run_while(&one_due, "a probe's join", true);
    }
    signal_sink = &probe_relay_ms;
    for (int i = 0; i < PROBE_RELAYS; i++) {
        signals_due = 1;
        send_signal(pair[0], pair[1], i);
        run_while(&signals_due, "a probe's signal", true);
    }
    conn_free(pair[0]);
    conn_free(pair[1]);
}

typedef struct Header {
    double create_s, join_s;
    int32_t counts[4];
} Header;

static void write_all(int fd, const void *data, size_t n) {
    for (const char *p = data; n > 0;) {
        ssize_t sent = write(fd, p, n);
        if (sent < 0 && errno == EINTR) continue;
        if (sent <= 0) fail("the parent process is gone");
        p += sent;
        n -= (size_t)sent;
    }
}

static Samples samples(size_t n) {
    Samples s = {calloc(n ? n : 1, sizeof(double)), 0};
    if (!s.values) fail("out of memory");
    return s;
}

/* One generator's share: rooms first..<first+share. Sends its raw figures up the pipe. */
static void generator(int share, int first, bool probing) {
    nrooms = share;
    first_room = first;
    rooms = calloc((size_t)share, sizeof *rooms);
    seats = calloc((size_t)share * SEATS, sizeof *seats);
    joined = calloc((size_t)share * SEATS, sizeof *joined);
    if (!rooms || !seats || !joined) fail("out of memory");
    join_ms = samples((size_t)share * SEATS);
    relay_ms = samples((size_t)share * SEATS * RELAY_ROUNDS);
    probe_join_ms = samples(PROBE_JOINS);
    probe_relay_ms = samples(PROBE_RELAYS);
    memset(sdp, 'x', 200);
    epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    if (epoll_fd < 0) fail("epoll_create1: %s", strerror(errno));
    struct epoll_event e = {.events = EPOLLIN, .data.ptr = NULL};
    if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, down_fd, &e) != 0) fail("epoll_ctl: %s", strerror(errno));

    phase();
    double t0 = now();
    work = (Work){.due = nrooms};
    create_more();
    run_while(&work.due, "rooms to be created", true);
    double create_s = now() - t0;

    pinging = true;  /* joined clients ping every 15 s, or the server drops them after 45 s */
    next_ping = now() + 1;
    phase();
    t0 = now();
    for (int seat = 0; seat < SEATS; seat++) {  /* seat by seat, so every room fills in the same order */
        work = (Work){.due = nrooms, .seat = seat};
        join_more();
        run_while(&work.due, "joins", true);
    }
    double join_s = now() - t0;

    signal_sink = &relay_ms;
    for (int round = 0; round < RELAY_ROUNDS; round++) {
        phase();
        /* Each client sends one signal to the next; each waits for the one addressed to it. */
        signals_due = nrooms * SEATS;
        for (int r = 0; r < nrooms; r++)
            for (int i = 0; i < SEATS; i++) send_signal(seats[r * SEATS + i], seats[r * SEATS + (i + 1) % SEATS], i);
        run_while(&signals_due, "relayed signals", true);
    }

    phase();
    if (probing) probe();
    phase();  /* everyone still connected while the parent reads the server's RSS */
    phase();
    pinging = false;
    for (int i = 0; i < nrooms * SEATS; i++) conn_free(seats[i]);

    Header header = {create_s, join_s, {join_ms.count, relay_ms.count, probe_join_ms.count, probe_relay_ms.count}};
    write_all(up_fd, &header, sizeof header);
    Samples *all[] = {&join_ms, &relay_ms, &probe_join_ms, &probe_relay_ms};
    for (int i = 0; i < 4; i++) write_all(up_fd, all[i]->values, sizeof(double) * (size_t)all[i]->count);
}

/* ---- the parent: barriers, the server's memory, the merged figures ---- */

static int processes;
static pid_t children[MAX_PROCESSES];
static int child_up[MAX_PROCESSES], child_down[MAX_PROCESSES];

static _Noreturn void abandon(const char *format, const char *detail) {
    for (int i = 0; i < processes; i++)
        if (children[i] > 0) kill(children[i], SIGTERM);
    for (int i = 0; i < processes; i++)
        if (children[i] > 0) waitpid(children[i], NULL, 0);
    fail(format, detail);
}

static void read_exact(int i, void *data, size_t n) {
    for (char *p = data; n > 0;) {
        ssize_t got = read(child_up[i], p, n);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) {
            char address[24];
            snprintf(address, sizeof address, "127.%d.0.0/24", 1 + i);
            abandon("the load generator at %s ended early", address);
        }
        p += got;
        n -= (size_t)got;
    }
}

/* Every generator reached the barrier; release them all. */
static void barrier(void) {
    bool arrived[MAX_PROCESSES] = {false};
    for (int left = processes; left > 0;) {
        struct pollfd fds[MAX_PROCESSES];
        for (int i = 0; i < processes; i++) fds[i] = (struct pollfd){.fd = arrived[i] ? -1 : child_up[i], .events = POLLIN};
        if (poll(fds, (nfds_t)processes, -1) < 0) {
            if (errno == EINTR) continue;
            abandon("poll: %s", strerror(errno));
        }
        for (int i = 0; i < processes; i++) {
            if (arrived[i] || !fds[i].revents) continue;
            char byte;
            read_exact(i, &byte, 1);
            arrived[i] = true;
            left--;
        }
    }
    for (int i = 0; i < processes; i++) {
        char byte = 1;
        if (write(child_down[i], &byte, 1) != 1) abandon("a load generator is gone: %s", strerror(errno));
    }
}

static void server_memory(const char *pids, long *rss, long *hwm) {
    *rss = *hwm = 0;
    for (const char *p = pids; *p;) {
        char *end;
        long pid = strtol(p, &end, 10);
        char path[64], line[256];
        snprintf(path, sizeof path, "/proc/%ld/status", pid);
        FILE *f = fopen(path, "r");
        if (!f) abandon("cannot read the server's memory: %s", path);
        long kib;
        while (fgets(line, sizeof line, f)) {
            if (sscanf(line, "VmRSS: %ld", &kib) == 1) *rss += kib;
            if (sscanf(line, "VmHWM: %ld", &kib) == 1) *hwm += kib;
        }
        fclose(f);
        p = *end == ',' ? end + 1 : end;
    }
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* As the Python: statistics.median, and the 99th percentile at round(99 / 100 * (n - 1)), Python's
 * round, half to even. */
static const char *described(Samples *s) {
    static char text[128];
    int n = s->count;
    if (n == 0) return "no figures";
    qsort(s->values, (size_t)n, sizeof(double), by_value);
    double median = n % 2 ? s->values[n / 2] : (s->values[n / 2 - 1] + s->values[n / 2]) / 2;
    double at = 99.0 / 100 * (n - 1);
    int index = (int)at;
    if (at - index > 0.5 || (at - index == 0.5 && index % 2)) index++;
    double p99 = s->values[index < n - 1 ? index : n - 1];
    snprintf(text, sizeof text, "p50 %.2f ms, p99 %.2f ms, max %.2f ms", median, p99, s->values[n - 1]);
    return text;
}

static void merge(Samples *into, int i, int count) {
    double *grown = realloc(into->values, sizeof(double) * (size_t)(into->count + count + 1));
    if (!grown) abandon("%s", "out of memory");
    into->values = grown;
    read_exact(i, into->values + into->count, sizeof(double) * (size_t)count);
    into->count += count;
}

static long argument(const char *text, long min, long max, const char *what) {
    char *end;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (errno || *end || end == text || value < min || value > max) fail("%s must be a number from %ld to %ld, not %s", what, min, max, text);
    return value;
}

int main(int argc, char **argv) {
    if (argc < 4 || argc > 5) {
        fprintf(stderr, "usage: rendezvous_load PORT ROOMS SERVER_PIDS [PROCESSES]\n");
        return 2;
    }
    port = (int)argument(argv[1], 1, 65535, "PORT");
    int total = (int)argument(argv[2], 1, 10000000, "ROOMS");
    const char *pids = argv[3];
    if (strspn(pids, "0123456789,") != strlen(pids) || !*pids) fail("SERVER_PIDS must be process ids separated by commas, not %s", pids);
    processes = argc > 4 ? (int)argument(argv[4], 1, total < MAX_PROCESSES ? total : MAX_PROCESSES, "PROCESSES") : 1;

    /* One process may hold 20,000 descriptors here: take all that the hard limit allows. */
    struct rlimit files;
    if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
        files.rlim_cur = files.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &files) != 0) fail("setrlimit(RLIMIT_NOFILE): %s", strerror(errno));
    }
    signal(SIGPIPE, SIG_IGN);
    if (getrandom(&prng_state, sizeof prng_state, 0) != sizeof prng_state) fail("getrandom: %s", strerror(errno));
    prng_state |= 1;

    for (int i = 0, first = 0; i < processes; i++) {
        int share = total / processes + (i < total % processes ? 1 : 0);
        int up[2], down[2];
        if (pipe2(up, O_CLOEXEC) != 0 || pipe2(down, O_CLOEXEC) != 0) abandon("pipe: %s", strerror(errno));
        pid_t pid = fork();
        if (pid < 0) abandon("fork: %s", strerror(errno));
        if (pid == 0) {
            for (int j = 0; j < i; j++) {
                close(child_up[j]);
                close(child_down[j]);
            }
            close(up[0]);
            close(down[1]);
            processes = 0;  /* a generator abandons no one */
            prctl(PR_SET_PDEATHSIG, SIGTERM);
            if (getppid() == 1) fail("the parent process is gone");
            up_fd = up[1];
            down_fd = down[0];
            char address[16];
            snprintf(address, sizeof address, "127.%d.0", 1 + i);
            source = address;
            snprintf(who, sizeof who, " (generator %s.0/24)", address);
            prng_state = prng_state * 0x9E3779B97F4A7C15ULL + (uint64_t)i + 1;
            generator(share, first, i == 0);
            exit(0);
        }
        close(up[1]);
        close(down[0]);
        children[i] = pid;
        child_up[i] = up[0];
        child_down[i] = down[1];
        first += share;
    }

    for (int k = 0; k < PHASES; k++) barrier();
    long rss, hwm;
    server_memory(pids, &rss, &hwm);  /* every client still connected */
    barrier();

    double create_s = 0, join_s = 0;
    Samples joins = {0}, relays = {0}, probe_joins = {0}, probe_relays = {0};
    Samples *merged[] = {&joins, &relays, &probe_joins, &probe_relays};
    for (int i = 0; i < processes; i++) {
        Header header;
        read_exact(i, &header, sizeof header);
        create_s = header.create_s > create_s ? header.create_s : create_s;
        join_s = header.join_s > join_s ? header.join_s : join_s;
        for (int k = 0; k < 4; k++) merge(merged[k], i, header.counts[k]);
    }
    for (int i = 0; i < processes; i++) {
        int status;
        if (waitpid(children[i], &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            children[i] = 0;
            abandon("%s", "a load generator failed");
        }
        children[i] = 0;
    }

    int clients = total * SEATS;
    printf("rooms=%d clients=%d load generators=%d\n", total, clients, processes);
    printf("create %d rooms (%d in flight per generator): %.2f s\n", total, GATE, create_s);
    printf("fill: %d joins, %d in flight per generator, in %.2f s (%.0f/s); latency (WebSocket open + join -> joined) %s\n",
           clients, GATE, join_s, clients / join_s, described(&joins));
    printf("burst relay: every client signals at once, %d rounds: %s (%d messages)\n", RELAY_ROUNDS, described(&relays), relays.count);
    printf("join with %d connections open, one at a time (%d): %s\n", clients, PROBE_JOINS, described(&probe_joins));
    printf("signal relay with %d connections open, one at a time (%d): %s\n", clients, PROBE_RELAYS, described(&probe_relays));
    printf("server RSS with all connected: %.1f MiB (peak %.1f MiB)\n", rss / 1024.0, hwm / 1024.0);
    return 0;
}
