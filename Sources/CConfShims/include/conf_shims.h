#ifndef CONF_SHIMS_H
#define CONF_SHIMS_H
// Wrappers for C entry points Swift cannot call: variadic constructors and macros.
#include <glib.h>
#include <glib-unix.h>
#include <gio/gio.h>
#include <libsoup/soup.h>

/// The commit conf was built from, or "" (set with `-Xcc -DCONF_COMMIT=\"abc1234\"` by scripts/package-deb).
const char *conf_build_commit(void);

/// soup_server_new with our server header and no other properties.
SoupServer *conf_soup_server_new(void);

/// soup_session_new_with_options: `timeout_seconds` bounds connecting and each I/O.
/// A session that reaches its server through `proxy_url` unless the host is one of the
/// comma-separated `direct_hosts`; directly when `proxy_url` is NULL.
/// With `address` (an IP address; NULL for none), every connection goes to `address`:`port` and
/// TLS names the server by that address rather than by a host name: for an IPv6 address, GLib
/// would otherwise send the address as the TLS server name (SNI), which RFC 6066 forbids and a
/// GnuTLS server refuses by ending the handshake.
SoupSession *conf_soup_session_new(guint timeout_seconds, const char *proxy_url, const char *direct_hosts, const char *address, guint16 port);

/// Sets the "keepalive-interval" property of a WebSocket connection (seconds, 0 = off).
void conf_websocket_set_keepalive(SoupWebsocketConnection *connection, guint seconds);

/// g_object_set for one property of each common type (g_object_set is variadic).
void conf_object_set_boolean(gpointer object, const char *property, gboolean value);

/// g_tls_connection_set_advertised_protocols with the one protocol `protocol` (ALPN).
void conf_tls_advertise_protocol(gpointer connection, const char *protocol);
void conf_object_set_uint(gpointer object, const char *property, guint value);
void conf_object_set_string(gpointer object, const char *property, const char *value);
/// The SHA-256 of a GTlsCertificate's DER encoding (its "certificate" property, read with the
/// varargs g_object_get); 0, or -1 when it has none.
int conf_tls_certificate_sha256(gpointer certificate, guint8 digest[32]);

/// The monotonic clock in nanoseconds (CLOCK_MONOTONIC).
guint64 conf_monotonic_ns(void);

/// getrandom(2) with flags 0: blocks only until the kernel's CSPRNG is seeded at boot.
gssize conf_getrandom(void *buffer, gsize length);

/// The terminal size of `fd` (TIOCGWINSZ; ioctl is variadic). 0 on success.
int conf_terminal_size(int fd, int *columns, int *rows);

/// The call screen's hold on the terminal (conf_tty.c). `conf_tty_take` saves the terminal's (`fd`'s)
/// modes, sets them raw for keys (no echo, no line editing, no signals from keys; output
/// processing kept), moves stderr to a pipe whose read end it returns (so that stray messages
/// cannot scribble over the screen), and arranges for `restore` (the bytes that leave the
/// alternate screen) to be written to `output_fd` and the modes and stderr put back on every way out: exit(),
/// and a crash signal (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGQUIT), after which the signal's
/// earlier handler (the Swift runtime's backtracer) runs. Returns -1 if `fd` is no terminal.
int conf_tty_take(int fd, int output_fd, const char *restore, size_t restore_length);

/// Gives the terminal back now (idempotent; async-signal-safe), and writes what is still unread in
/// the stderr pipe (a crash's last line) to the real stderr, its control characters as '?'. A
/// signal that was ignored when the terminal was taken stays ignored.
void conf_tty_give_back(void);

/// Whether `signal` is ignored (as `nohup` leaves SIGHUP for the programs it starts).
int conf_signal_is_ignored(int signal);

/// The couriers between the processes of one rendezvous (conf_courier.c): one Unix datagram
/// socketpair per worker, made by the first process and inherited by the others, never named.
/// `ends[0]` receives (it is told each sender's credentials), `ends[1]` sends to it. 0 or -errno.
int conf_courier_pair(int ends[2]);
/// Whether `fd` is a Unix datagram socket whose peer was made by this user (SO_PEERCRED): an
/// inherited courier end is used only then.
int conf_courier_is_ours(int fd);
/// Sends `payload` and, unless `descriptor` is -1, a copy of `descriptor` on a courier's sending end. 0 or -errno.
int conf_courier_send(int send_end, int descriptor, const void *payload, size_t length);
/// One message: its length, the descriptor it carried in `*descriptor` (or -1); -EAGAIN when none
/// waits, -EPERM for one from another user (its descriptor closed).
ssize_t conf_courier_receive(int courier, void *payload, size_t capacity, int *descriptor);
/// SIGTERM when the parent process dies (prctl is variadic).
void conf_die_with_parent(void);

/// Raises the soft RLIMIT_NOFILE to the hard limit (or to fs.nr_open when the hard limit is
/// unlimited). Returns the soft limit in force afterwards, or -1 if it cannot be read.
long conf_raise_descriptor_limit(void);

/// The soft RLIMIT_NOFILE now in force (-1 if unknown).
long conf_descriptor_limit(void);

/// accept4(2) with SOCK_NONBLOCK | SOCK_CLOEXEC: the new descriptor, or -errno.
int conf_accept(int listening_fd);

/// Sets or clears TCP_NODELAY on a connected socket.
void conf_set_tcp_nodelay(int fd, int on);

/// write(2) of a short message to a fresh non-blocking socket, ignoring partial writes and
/// errors (a best-effort refusal before close), never raising SIGPIPE.
void conf_send_best_effort(int fd, const char *text);

/// epoll for the rendezvous's own WebSockets (RendezvousServer): one set per worker, itself
/// watched by the worker's GLib loop, so that GLib's per-iteration cost does not grow with the
/// connections. Level-triggered. Each call returns 0 (or a count) or -errno.
int conf_epoll_create(void);
/// Adds `fd` (`add` != 0) or changes its events: always readable, writable too when `writable`;
/// edge-triggered when `edge` (told only when more arrives: for sockets read with MSG_PEEK).
int conf_epoll_watch(int epoll_fd, int fd, int writable, int edge, int add);
int conf_epoll_forget(int epoll_fd, int fd);
/// Up to `capacity` ready descriptors, without waiting: `fds[i]`, and in `ready[i]` bit 1 when it
/// is readable, hung up or in error, bit 2 when it may be written.
int conf_epoll_ready(int epoll_fd, int *fds, int *ready, int capacity);

/// A GSource that dispatches once its deadline (CLOCK_MONOTONIC nanoseconds, as
/// conf_monotonic_ns) has come, then waits for the next `conf_deadline_source_set`. Setting the
/// deadline only writes a field: it must be called on the thread that runs the source's context,
/// where the next iteration's prepare reads it (unlike g_source_set_ready_time, which wakes the
/// context each time). The poll timeout is rounded up to whole milliseconds.
GSource *conf_deadline_source_new(void);
/// `deadline_ns`: when to dispatch next; G_MAXUINT64 for never.
void conf_deadline_source_set(GSource *source, guint64 deadline_ns);
#endif
