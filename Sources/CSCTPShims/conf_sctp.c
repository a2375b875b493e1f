#include "conf_sctp.h"
#include <usrsctp.h>
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

struct conf_sctp {
    struct socket *socket;
    void *context;
    conf_sctp_output_fn output;
    conf_sctp_message_fn message;
    conf_sctp_event_fn event;
    conf_sctp_stream_reset_fn stream_reset;
    uint16_t local_port;
    /// Nothing reaches the owner any more.
    int closed;
    /// Being closed by conf_sctp_close: packets still go out (the ABORT), nothing else is reported.
    int closing;
};

static int output_packet(void *addr, void *buffer, size_t length, uint8_t tos, uint8_t set_df) {
    (void)tos;
    (void)set_df;
    conf_sctp *sctp = addr;
    if (!sctp->closed) sctp->output(sctp->context, buffer, length);
    return 0;
}

void conf_sctp_library_init(void) {
    static int initialized = 0;
    if (initialized) return;
    initialized = 1;
    usrsctp_init_nothreads(0, output_packet, NULL);
    usrsctp_sysctl_set_sctp_ecn_enable(0);
}

void conf_sctp_handle_timers(uint32_t elapsed_ms) {
    usrsctp_handle_timers(elapsed_ms);
}

static int receive(struct socket *socket, union sctp_sockstore addr, void *data, size_t length,
                   struct sctp_rcvinfo info, int flags, void *ulp_info) {
    (void)socket;
    (void)addr;
    conf_sctp *sctp = ulp_info;
    int reporting = !sctp->closed && !sctp->closing;
    if (data == NULL) {
        if (reporting) sctp->event(sctp->context, CONF_SCTP_DOWN);
        return 1;
    }
    if (reporting) {
        if (flags & MSG_NOTIFICATION) {
            const union sctp_notification *n = data;
            if (length >= sizeof(struct sctp_assoc_change) && n->sn_header.sn_type == SCTP_ASSOC_CHANGE) {
                uint16_t state = n->sn_assoc_change.sac_state;
                if (state == SCTP_COMM_UP) sctp->event(sctp->context, CONF_SCTP_UP);
                if (state == SCTP_COMM_LOST || state == SCTP_SHUTDOWN_COMP || state == SCTP_CANT_STR_ASSOC)
                    sctp->event(sctp->context, CONF_SCTP_DOWN);
            } else if (length >= sizeof(struct sctp_stream_reset_event) && n->sn_header.sn_type == SCTP_STREAM_RESET_EVENT) {
                // RFC 8831 section 6.7: the peer closed a channel by resetting its outgoing
                // stream, which arrives as our incoming stream's reset.
                const struct sctp_stream_reset_event *reset = &n->sn_strreset_event;
                uint16_t reset_flags = reset->strreset_flags;
                if ((reset_flags & SCTP_STREAM_RESET_INCOMING_SSN) &&
                    !(reset_flags & (SCTP_STREAM_RESET_DENIED | SCTP_STREAM_RESET_FAILED))) {
                    size_t bytes = reset->strreset_length < length ? reset->strreset_length : length;
                    size_t count = (bytes - sizeof(struct sctp_stream_reset_event)) / sizeof(uint16_t);
                    for (size_t i = 0; i < count; i++) sctp->stream_reset(sctp->context, reset->strreset_stream_list[i]);
                }
            }
        } else {
            sctp->message(sctp->context, info.rcv_sid, ntohl(info.rcv_ppid), data, length);
        }
    }
    free(data);
    return 1;
}

conf_sctp *conf_sctp_new(void *context, uint16_t local_port, conf_sctp_output_fn output,
                         conf_sctp_message_fn message, conf_sctp_event_fn event, conf_sctp_stream_reset_fn stream_reset) {
    conf_sctp *sctp = calloc(1, sizeof *sctp);
    if (!sctp) return NULL;
    sctp->context = context;
    sctp->output = output;
    sctp->message = message;
    sctp->event = event;
    sctp->stream_reset = stream_reset;
    sctp->local_port = local_port;
    usrsctp_register_address(sctp);
    sctp->socket = usrsctp_socket(AF_CONN, SOCK_STREAM, IPPROTO_SCTP, receive, NULL, 0, sctp);
    if (!sctp->socket) {
        usrsctp_deregister_address(sctp);
        free(sctp);
        return NULL;
    }
    usrsctp_set_non_blocking(sctp->socket, 1);
    // Linger 0: close with ABORT rather than a graceful shutdown we would have to wait for.
    struct linger linger = {1, 0};
    usrsctp_setsockopt(sctp->socket, SOL_SOCKET, SO_LINGER, &linger, sizeof linger);
    int on = 1;
    usrsctp_setsockopt(sctp->socket, IPPROTO_SCTP, SCTP_RECVRCVINFO, &on, sizeof on);
    usrsctp_setsockopt(sctp->socket, IPPROTO_SCTP, SCTP_NODELAY, &on, sizeof on);
    struct sctp_assoc_value reset = {SCTP_ALL_ASSOC, SCTP_ENABLE_RESET_STREAM_REQ};
    usrsctp_setsockopt(sctp->socket, IPPROTO_SCTP, SCTP_ENABLE_STREAM_RESET, &reset, sizeof reset);
    struct sctp_initmsg init = {0};
    init.sinit_num_ostreams = 1024;  // RFC 8831 section 6.2: as many streams as the peer may want
    init.sinit_max_instreams = 1024;
    usrsctp_setsockopt(sctp->socket, IPPROTO_SCTP, SCTP_INITMSG, &init, sizeof init);
    struct sctp_event subscribe = {0};
    subscribe.se_assoc_id = SCTP_ALL_ASSOC;
    subscribe.se_on = 1;
    subscribe.se_type = SCTP_ASSOC_CHANGE;
    usrsctp_setsockopt(sctp->socket, IPPROTO_SCTP, SCTP_EVENT, &subscribe, sizeof subscribe);
    subscribe.se_type = SCTP_STREAM_RESET_EVENT;
    usrsctp_setsockopt(sctp->socket, IPPROTO_SCTP, SCTP_EVENT, &subscribe, sizeof subscribe);

    struct sockaddr_conn local = {0};
    local.sconn_family = AF_CONN;
    local.sconn_port = htons(local_port);
    local.sconn_addr = sctp;
    if (usrsctp_bind(sctp->socket, (struct sockaddr *)&local, sizeof local) < 0) {
        conf_sctp_free(sctp);
        return NULL;
    }
    return sctp;
}

int conf_sctp_connect(conf_sctp *sctp, uint16_t remote_port) {
    struct sockaddr_conn remote = {0};
    remote.sconn_family = AF_CONN;
    remote.sconn_port = htons(remote_port);
    remote.sconn_addr = sctp;
    if (usrsctp_connect(sctp->socket, (struct sockaddr *)&remote, sizeof remote) < 0 && errno != EINPROGRESS) return errno;
    return 0;
}

void conf_sctp_input(conf_sctp *sctp, const void *data, size_t length) {
    usrsctp_conninput(sctp, data, length, 0);
}

int conf_sctp_send(conf_sctp *sctp, uint16_t stream, uint32_t ppid, const void *data, size_t length) {
    struct sctp_sndinfo info = {0};
    info.snd_sid = stream;
    info.snd_ppid = htonl(ppid);
    info.snd_flags = SCTP_EOR;
    // An empty message cannot be sent: RFC 8831 section 6.6 sends one zero byte with an "empty" PPID.
    static const uint8_t zero = 0;
    if (length == 0) {
        data = &zero;
        length = 1;
    }
    if (usrsctp_sendv(sctp->socket, data, length, NULL, 0, &info, sizeof info, SCTP_SENDV_SNDINFO, 0) < 0) return errno;
    return 0;
}

int conf_sctp_reset_stream(conf_sctp *sctp, uint16_t stream) {
    if (!sctp->socket) return EBADF;
    size_t size = sizeof(struct sctp_reset_streams) + sizeof(uint16_t);
    struct sctp_reset_streams *reset = calloc(1, size);
    if (!reset) return ENOMEM;
    reset->srs_assoc_id = SCTP_ALL_ASSOC;
    reset->srs_flags = SCTP_STREAM_RESET_OUTGOING;
    reset->srs_number_streams = 1;
    reset->srs_stream_list[0] = stream;
    int result = usrsctp_setsockopt(sctp->socket, IPPROTO_SCTP, SCTP_RESET_STREAMS, reset, (socklen_t)size) < 0 ? errno : 0;
    free(reset);
    return result;
}

void conf_sctp_close(conf_sctp *sctp) {
    if (!sctp || !sctp->socket) return;
    sctp->closing = 1;
    usrsctp_close(sctp->socket);  // linger 0: an ABORT goes out through the output callback
    sctp->socket = NULL;
}

void conf_sctp_free(conf_sctp *sctp) {
    if (!sctp) return;
    sctp->closed = 1;
    if (sctp->socket) usrsctp_close(sctp->socket);
    usrsctp_deregister_address(sctp);
    free(sctp);
}
