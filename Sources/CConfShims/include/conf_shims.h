#ifndef CONF_SHIMS_H
#define CONF_SHIMS_H
// Wrappers for C entry points Swift cannot call: variadic constructors and macros.
#include <glib.h>
#include <glib-unix.h>
#include <gio/gio.h>
#include <libsoup/soup.h>

/// soup_server_new with our server header and no other properties.
SoupServer *conf_soup_server_new(void);

/// soup_session_new_with_options: `timeout_seconds` bounds connecting and each I/O.
SoupSession *conf_soup_session_new(guint timeout_seconds);

/// Sets the "keepalive-interval" property of a WebSocket connection (seconds, 0 = off).
void conf_websocket_set_keepalive(SoupWebsocketConnection *connection, guint seconds);

/// g_object_set for one property of each common type (g_object_set is variadic).
void conf_object_set_boolean(gpointer object, const char *property, gboolean value);
void conf_object_set_uint(gpointer object, const char *property, guint value);
void conf_object_set_string(gpointer object, const char *property, const char *value);

/// The monotonic clock in nanoseconds (CLOCK_MONOTONIC).
guint64 conf_monotonic_ns(void);

/// getrandom(2) with flags 0: blocks only until the kernel's CSPRNG is seeded at boot.
gssize conf_getrandom(void *buffer, gsize length);

/// The terminal size of `fd` (TIOCGWINSZ; ioctl is variadic). 0 on success.
int conf_terminal_size(int fd, int *columns, int *rows);

#endif
