// Descriptors handed between the processes of one rendezvous (`conf rendezvous --processes P`):
// each worker binds a Unix datagram socket in the abstract namespace, named after the port and
// its worker number; a connection for a room another process holds is sent to that worker's
// socket as SCM_RIGHTS. The receiver takes descriptors only from its own user (SCM_CREDENTIALS).
#define _GNU_SOURCE  // struct ucred, SCM_CREDENTIALS
#include "conf_shims.h"
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <signal.h>
#include <unistd.h>

static socklen_t courier_address(struct sockaddr_un *address, unsigned port, unsigned worker) {
    memset(address, 0, sizeof *address);
    address->sun_family = AF_UNIX;
    // Abstract: a leading NUL, no file; gone with the socket.
    int length = snprintf(address->sun_path + 1, sizeof address->sun_path - 1, "conf-rendezvous/%u/%u", port, worker);
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)length);
}

int conf_courier_bind(unsigned port, unsigned worker) {
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -errno;
    int on = 1;
    setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
    struct sockaddr_un address;
    socklen_t length = courier_address(&address, port, worker);
    if (bind(fd, (struct sockaddr *)&address, length) != 0) {
        int error = errno;
        close(fd);
        return -error;
    }
    return fd;
}

int conf_courier_send(int courier, unsigned port, unsigned worker, int descriptor, const void *payload, size_t length) {
    struct sockaddr_un address;
    socklen_t address_length = courier_address(&address, port, worker);
    struct iovec part = {.iov_base = (void *)payload, .iov_len = length};
    char control[CMSG_SPACE(sizeof(int))];
    memset(control, 0, sizeof control);
    struct msghdr message = {.msg_name = &address, .msg_namelen = address_length, .msg_iov = &part, .msg_iovlen = 1};
    if (descriptor >= 0) {
        message.msg_control = control;
        message.msg_controllen = sizeof control;
        struct cmsghdr *header = CMSG_FIRSTHDR(&message);
        header->cmsg_level = SOL_SOCKET;
        header->cmsg_type = SCM_RIGHTS;
        header->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(header), &descriptor, sizeof(int));
    }
    return sendmsg(courier, &message, MSG_DONTWAIT | MSG_NOSIGNAL) < 0 ? -errno : 0;
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
