#define _GNU_SOURCE  // accept4
#include "conf_shims.h"
#include <time.h>
#include <sys/random.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

SoupServer *conf_soup_server_new(void) {
    return soup_server_new("server-header", "conf-rendezvous", NULL);
}

SoupSession *conf_soup_session_new(guint timeout_seconds, const char *proxy_url, const char *direct_hosts, const char *address, guint16 port) {
    GProxyResolver *resolver = NULL;
    if (proxy_url) {
        gchar **ignored = g_strsplit(direct_hosts ? direct_hosts : "", ",", -1);
        resolver = g_simple_proxy_resolver_new(proxy_url, ignored[0] ? ignored : NULL);
        g_strfreev(ignored);
    }
    GSocketAddress *remote = NULL;
    if (address) {
        GInetAddress *inet = g_inet_address_new_from_string(address);
        if (inet) {
            remote = g_inet_socket_address_new(inet, port);
            g_object_unref(inet);
        }
    }
    // With no resolver given, libsoup would ask GIO's default one (libproxy, GSettings, dconf).
    SoupSession *session = soup_session_new_with_options("timeout", timeout_seconds, "user-agent", "conf", "proxy-resolver", resolver,
                                                         "remote-connectable", remote, NULL);
    if (resolver) g_object_unref(resolver);
    if (remote) g_object_unref(remote);
    return session;
}

void conf_websocket_set_keepalive(SoupWebsocketConnection *connection, guint seconds) {
    g_object_set(connection, "keepalive-interval", seconds, NULL);
}

guint64 conf_monotonic_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (guint64)ts.tv_sec * 1000000000ull + (guint64)ts.tv_nsec;
}

gssize conf_getrandom(void *buffer, gsize length) {
    return getrandom(buffer, length, 0);
}

void conf_object_set_boolean(gpointer object, const char *property, gboolean value) {
    g_object_set(object, property, value, NULL);
}

void conf_tls_advertise_protocol(gpointer connection, const char *protocol) {
    const gchar *protocols[] = {protocol, NULL};
    g_tls_connection_set_advertised_protocols(G_TLS_CONNECTION(connection), protocols);
}

void conf_object_set_uint(gpointer object, const char *property, guint value) {
    g_object_set(object, property, value, NULL);
}

void conf_object_set_string(gpointer object, const char *property, const char *value) {
    g_object_set(object, property, value, NULL);
}

int conf_tls_certificate_sha256(gpointer certificate, guint8 digest[32]) {
    GByteArray *der = NULL;
    g_object_get(certificate, "certificate", &der, NULL);
    if (der == NULL) return -1;
    GChecksum *checksum = g_checksum_new(G_CHECKSUM_SHA256);
    g_checksum_update(checksum, der->data, der->len);
    gsize length = 32;
    g_checksum_get_digest(checksum, digest, &length);
    g_checksum_free(checksum);
    g_byte_array_unref(der);
    return length == 32 ? 0 : -1;
}

int conf_terminal_size(int fd, int *columns, int *rows) {
    struct winsize size;
    if (ioctl(fd, TIOCGWINSZ, &size) != 0 || size.ws_col == 0) return -1;
    *columns = size.ws_col;
    *rows = size.ws_row;
    return 0;
}

long conf_raise_descriptor_limit(void) {
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return -1;
    rlim_t target = limit.rlim_max;
    if (target == RLIM_INFINITY) {
        // The kernel refuses more than fs.nr_open descriptors whatever the hard limit says.
        target = 1048576;
        FILE *file = fopen("/proc/sys/fs/nr_open", "r");
        if (file) {
            unsigned long value = 0;
            if (fscanf(file, "%lu", &value) == 1 && value > 0) target = value;
            fclose(file);
        }
    }
    if (limit.rlim_cur < target) {
        struct rlimit raised = { target, limit.rlim_max };
        if (setrlimit(RLIMIT_NOFILE, &raised) == 0) limit.rlim_cur = target;
    }
    return limit.rlim_cur == RLIM_INFINITY ? 1048576 : (long)limit.rlim_cur;
}

long conf_descriptor_limit(void) {
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return -1;
    return limit.rlim_cur == RLIM_INFINITY ? 1048576 : (long)limit.rlim_cur;
}

int conf_accept(int listening_fd) {
    int fd = accept4(listening_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    return fd >= 0 ? fd : -errno;
}

void conf_set_tcp_nodelay(int fd, int on) {
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
}

void conf_send_best_effort(int fd, const char *text) {
    (void)send(fd, text, strlen(text), MSG_NOSIGNAL | MSG_DONTWAIT);
}

#ifndef CONF_COMMIT
#define CONF_COMMIT ""
#endif
const char *conf_build_commit(void) { return CONF_COMMIT; }

typedef struct {
    GSource source;
    guint64 deadline_ns;
} ConfDeadlineSource;

static gboolean conf_deadline_prepare(GSource *source, gint *timeout) {
    guint64 deadline = ((ConfDeadlineSource *)source)->deadline_ns;
    if (deadline == G_MAXUINT64) {
        *timeout = -1;
        return FALSE;
    }
    guint64 now = conf_monotonic_ns();
    if (deadline <= now) {
        *timeout = 0;
        return TRUE;
    }
    guint64 ms = (deadline - now + 999999) / 1000000;
    *timeout = ms > G_MAXINT ? G_MAXINT : (gint)ms;
    return FALSE;
}

static gboolean conf_deadline_check(GSource *source) {
    return ((ConfDeadlineSource *)source)->deadline_ns <= conf_monotonic_ns();
}

static gboolean conf_deadline_dispatch(GSource *source, GSourceFunc callback, gpointer data) {
    ((ConfDeadlineSource *)source)->deadline_ns = G_MAXUINT64;
    return callback ? callback(data) : G_SOURCE_REMOVE;
}

static GSourceFuncs conf_deadline_funcs = {
    .prepare = conf_deadline_prepare,
    .check = conf_deadline_check,
    .dispatch = conf_deadline_dispatch,
};

GSource *conf_deadline_source_new(void) {
    GSource *source = g_source_new(&conf_deadline_funcs, sizeof(ConfDeadlineSource));
    ((ConfDeadlineSource *)source)->deadline_ns = G_MAXUINT64;
    return source;
}

void conf_deadline_source_set(GSource *source, guint64 deadline_ns) {
    ((ConfDeadlineSource *)source)->deadline_ns = deadline_ns;
}
