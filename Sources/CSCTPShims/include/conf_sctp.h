#ifndef CONF_SCTP_H
#define CONF_SCTP_H
// A thin C layer over usrsctp in AF_CONN mode (no kernel sockets, no usrsctp threads): packets
// go in with conf_sctp_input and come out through the output callback, to travel inside DTLS.
// Its receive callback passes union and struct arguments by value, which is why this is C.
// Threading: every call, and every callback, on one thread.
#include <stddef.h>
#include <stdint.h>

typedef struct conf_sctp conf_sctp;

/// An SCTP packet to send to the peer (through DTLS).
typedef void (*conf_sctp_output_fn)(void *context, const void *data, size_t length);
/// A whole message received on `stream` with payload protocol identifier `ppid` (host order).
typedef void (*conf_sctp_message_fn)(void *context, uint16_t stream, uint32_t ppid, const void *data, size_t length);
/// The association came up (CONF_SCTP_UP) or ended (CONF_SCTP_DOWN).
typedef void (*conf_sctp_event_fn)(void *context, int event);

/// The peer reset its outgoing `stream` (our incoming one): it closed that data channel.
typedef void (*conf_sctp_stream_reset_fn)(void *context, uint16_t stream);

enum { CONF_SCTP_UP = 1, CONF_SCTP_DOWN = 2 };

/// Initializes usrsctp once per process (usrsctp_init_nothreads).
void conf_sctp_library_init(void);

/// Advances usrsctp's timers; call about every 10 ms.
void conf_sctp_handle_timers(uint32_t elapsed_ms);

/// A socket bound to `local_port`, not yet connected. NULL on failure.
conf_sctp *conf_sctp_new(void *context, uint16_t local_port, conf_sctp_output_fn output,
                         conf_sctp_message_fn message, conf_sctp_event_fn event, conf_sctp_stream_reset_fn stream_reset);

/// Starts the association towards the peer's `remote_port`. Returns 0 or an errno.
int conf_sctp_connect(conf_sctp *sctp, uint16_t remote_port);

/// A packet from the peer. Never call from inside the output callback.
void conf_sctp_input(conf_sctp *sctp, const void *data, size_t length);

/// Sends one message, reliable and ordered. Returns 0 or an errno.
int conf_sctp_send(conf_sctp *sctp, uint16_t stream, uint32_t ppid, const void *data, size_t length);

/// Resets our outgoing `stream` (RFC 6525), which closes a data channel (RFC 8831 section 6.7).
/// Returns 0 or an errno.
int conf_sctp_reset_stream(conf_sctp *sctp, uint16_t stream);

/// Ends the association telling the peer (an ABORT goes out through the output callback, from
/// inside this call); nothing else is reported. conf_sctp_free must still be called.
void conf_sctp_close(conf_sctp *sctp);

/// Closes the socket (silently, if conf_sctp_close was not called) and frees everything; no
/// callback follows.
void conf_sctp_free(conf_sctp *sctp);

#endif
