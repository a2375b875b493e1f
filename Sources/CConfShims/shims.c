#include "conf_shims.h"
#include <time.h>
#include <sys/random.h>
#include <sys/ioctl.h>

SoupServer *conf_soup_server_new(void) {
    return soup_server_new("server-header", "conf-rendezvous", NULL);
}

SoupSession *conf_soup_session_new(guint timeout_seconds) {
    return soup_session_new_with_options("timeout", timeout_seconds, "user-agent", "conf", NULL);
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

void conf_object_set_uint(gpointer object, const char *property, guint value) {
    g_object_set(object, property, value, NULL);
}

void conf_object_set_string(gpointer object, const char *property, const char *value) {
    g_object_set(object, property, value, NULL);
}

int conf_terminal_size(int fd, int *columns, int *rows) {
    struct winsize size;
    if (ioctl(fd, TIOCGWINSZ, &size) != 0 || size.ws_col == 0) return -1;
    *columns = size.ws_col;
    *rows = size.ws_row;
    return 0;
}
