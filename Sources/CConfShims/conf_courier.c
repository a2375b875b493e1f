// Descriptors handed between the processes of one rendezvous (`conf rendezvous --processes P`):
// the first process makes a Unix datagram socketpair for every worker of every process before it
// starts the others, which inherit them. No socket has a name, so no other local user can bind
// one first or send to one; a connection for a room another process holds goes to that worker's
// sending end as SCM_RIGHTS. The receiver still takes descriptors only from its own user
// (SCM_CREDENTIALS).
#define _GNU_SOURCE  // struct ucred, SCM_CREDENTIALS
#include "conf_shims.h"
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <signal.h>
#include <unistd.h>

int conf_courier_pair(int ends[2]) {
    if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, ends) != 0) return -errno;
    int on = 1;
    if (setsockopt(ends[0], SOL_SOCKET, SO_PASSCRED, &on, sizeof on) != 0) {
        int error = errno;
        close(ends[0]);
        close(ends[1]);
        return -error;
    }
    return 0;
}

int conf_courier_is_ours(int fd) {
    int type = 0, domain = 0;
    socklen_t length = sizeof type;
    if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) != 0 || type != SOCK_DGRAM) return 0;
    length = sizeof domain;
    if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &length) != 0 || domain != AF_UNIX) return 0;
    struct ucred peer;
    length = sizeof peer;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &length) != 0) return 0;
    return peer.uid == geteuid();
}

int conf_courier_send(int send_end, int descriptor, const void *payload, size_t length) {
    struct iovec part = {.iov_base = (void *)payload, .iov_len = length};
    char control[CMSG_SPACE(sizeof(int))];
    memset(control, 0, sizeof control);
    struct msghdr message = {.msg_iov = &part, .msg_iovlen = 1};
    if (descriptor >= 0) {
        message.msg_control = control;
        message.msg_controllen = sizeof control;
        struct cmsghdr *header = CMSG_FIRSTHDR(&message);
        header->cmsg_level = SOL_SOCKET;
        header->cmsg_type = SCM_RIGHTS;
        header->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(header), &descriptor, sizeof(int));
    }
    return sendmsg(send_end, &message, MSG_DONTWAIT | MSG_NOSIGNAL) < 0 ? -errno : 0;
}

ssize_t conf_courier_receive(int courier, void *payload, size_t capacity, int *descriptor) {
    *descriptor = -1;
    struct iovec part = {.iov_base = payload, .iov_len = capacity};
    char control[CMSG_SPACE(sizeof(int)) + CMSG_SPACE(sizeof(struct ucred))];
    struct msghdr message = {.msg_iov = &part, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control};
    ssize_t n = recvmsg(courier, &message, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    if (n < 0) return -errno;
    int received = -1;
    int trusted = 0;
    for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header; header = CMSG_NXTHDR(&message, header)) {
        if (header->cmsg_level != SOL_SOCKET) continue;
        if (header->cmsg_type == SCM_RIGHTS && header->cmsg_len >= CMSG_LEN(sizeof(int))) {
            memcpy(&received, CMSG_DATA(header), sizeof(int));
        } else if (header->cmsg_type == SCM_CREDENTIALS) {
            struct ucred credentials;
            memcpy(&credentials, CMSG_DATA(header), sizeof credentials);
            trusted = credentials.uid == geteuid();
        }
    }
    if (!trusted || (message.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
        if (received >= 0) close(received);
        return -EPERM;
    }
    *descriptor = received;
    return n;
}

void conf_die_with_parent(void) { prctl(PR_SET_PDEATHSIG, SIGTERM); }
