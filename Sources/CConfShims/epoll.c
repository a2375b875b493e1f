#include "conf_shims.h"
#include <errno.h>
#include <sys/epoll.h>

// Shims because struct epoll_event is packed on x86-64, a layout Swift should not be trusted to import.

int conf_epoll_create(void) {
    int fd = epoll_create1(EPOLL_CLOEXEC);
    return fd >= 0 ? fd : -errno;
}

int conf_epoll_watch(int epoll_fd, int fd, int writable, int edge, int add) {
    struct epoll_event event = { .events = EPOLLIN | EPOLLRDHUP | (writable ? EPOLLOUT : 0) | (edge ? EPOLLET : 0), .data.fd = fd };
    return epoll_ctl(epoll_fd, add ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &event) == 0 ? 0 : -errno;
}

int conf_epoll_forget(int epoll_fd, int fd) {
    return epoll_ctl(epoll_fd, EPOLL_CTL_DEL, fd, NULL) == 0 ? 0 : -errno;
}

int conf_epoll_ready(int epoll_fd, int *fds, int *ready, int capacity) {
    struct epoll_event events[256];
    if (capacity > 256) capacity = 256;
    int n = epoll_wait(epoll_fd, events, capacity, 0);
    if (n < 0) return -errno;
    for (int i = 0; i < n; i++) {
        fds[i] = events[i].data.fd;
        ready[i] = (events[i].events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR) ? 1 : 0)
                 | (events[i].events & EPOLLOUT ? 2 : 0);
    }
    return n;
}
