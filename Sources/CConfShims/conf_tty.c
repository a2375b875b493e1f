// The terminal's modes and stderr, taken for the call screen and given back on every way out.
// Everything conf_tty_give_back does is async-signal-safe (read, write, tcsetattr, dup2, close), so the
// crash handlers may call it.
#define _GNU_SOURCE  // pipe2
#include "conf_shims.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

static volatile sig_atomic_t held = 0;
static int tty_fd = -1;
static int screen_fd = -1;
static struct termios saved_modes;
static int saved_stderr = -1;
static int stderr_pipe = -1;  // the read end: what was written to stderr while the screen held it
static char restore_bytes[64];
static size_t restore_count = 0;
// The signals whose default action ends the process at once (SIGQUIT is Ctrl-\\ elsewhere, and
// `kill -QUIT`): the terminal is given back first, then the signal goes on as it would have.
static const int crash_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGQUIT};
#define CRASH_SIGNAL_COUNT (sizeof crash_signals / sizeof crash_signals[0])
static struct sigaction earlier[CRASH_SIGNAL_COUNT];
static int exit_hook_set = 0;

void conf_tty_give_back(void) {
    if (!held) return;
    held = 0;
    if (saved_stderr >= 0) {
        dup2(saved_stderr, 2);
        close(saved_stderr);
        saved_stderr = -1;
    }
    size_t offset = 0;
    while (offset < restore_count) {
        ssize_t n = write(screen_fd, restore_bytes + offset, restore_count - offset);
        if (n > 0) offset += (size_t)n;
        else if (n < 0 && errno == EINTR) continue;
        else break;
    }
    tcsetattr(tty_fd, TCSAFLUSH, &saved_modes);
    // What reached stderr and was not read yet (a crash's "Fatal error" line, written just before
    // the trap) goes to the real stderr now, on the normal screen. The pipe is non-blocking.
    if (stderr_pipe >= 0) {
        char buffer[4096];
        ssize_t n;
        while ((n = read(stderr_pipe, buffer, sizeof buffer)) > 0 || (n < 0 && errno == EINTR)) {
            // Controls are shown as '?', never raw to the terminal: C0 but line breaks and tabs,
            // DEL, and C1 (U+0080-009F, UTF-8 C2 80...C2 9F; a C2 that ends the read too).
            for (ssize_t i = 0; i < n; i++) {
                unsigned char c = (unsigned char)buffer[i];
                if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7F) buffer[i] = '?';
                if (c == 0xC2 && (i + 1 == n || ((unsigned char)buffer[i + 1] >= 0x80 && (unsigned char)buffer[i + 1] <= 0x9F))) {
                    buffer[i] = '?';
                    if (i + 1 < n) buffer[++i] = '?';
                }
            }
            if (n > 0 && write(2, buffer, (size_t)n) < 0) break;
        }
        stderr_pipe = -1;  // its owner closes it
    }
}

static void on_crash(int signal) {
    conf_tty_give_back();
    for (size_t i = 0; i < CRASH_SIGNAL_COUNT; i++) {
        if (crash_signals[i] == signal) sigaction(signal, &earlier[i], NULL);
    }
    raise(signal);  // to the earlier handler, or the default action
}

static void on_exit_hook(void) { conf_tty_give_back(); }

int conf_tty_take(int fd, int output_fd, const char *restore, size_t restore_length) {
    if (held) return -1;
    struct termios modes;
    if (!isatty(fd) || tcgetattr(fd, &modes) != 0) return -1;
    int pipe_ends[2];
    // Non-blocking: a writer that fills the pipe loses its message rather than hanging the loop.
    if (pipe2(pipe_ends, O_NONBLOCK | O_CLOEXEC) != 0) return -1;
    saved_modes = modes;
    tty_fd = fd;
    screen_fd = output_fd;
    restore_count = restore_length < sizeof restore_bytes ? restore_length : sizeof restore_bytes;
    memcpy(restore_bytes, restore, restore_count);
    modes.c_iflag &= ~(tcflag_t)(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR | IGNCR | ICRNL | IXON);
    modes.c_lflag &= ~(tcflag_t)(ECHO | ECHONL | ICANON | ISIG | IEXTEN);
    modes.c_cflag |= CS8;
    modes.c_cc[VMIN] = 1;
    modes.c_cc[VTIME] = 0;
    if (tcsetattr(fd, TCSAFLUSH, &modes) != 0) {
        close(pipe_ends[0]);
        close(pipe_ends[1]);
        return -1;
    }
    saved_stderr = dup(2);
    if (saved_stderr < 0) {  // no descriptor left: stderr stays as it is, and so does the terminal
        tcsetattr(fd, TCSAFLUSH, &saved_modes);
        close(pipe_ends[0]);
        close(pipe_ends[1]);
        return -1;
    }
    dup2(pipe_ends[1], 2);
    close(pipe_ends[1]);
    stderr_pipe = pipe_ends[0];
    held = 1;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_crash;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_NODEFER;
    // A parent may have started us with some of them blocked (SIGQUIT from `kill` would then wait forever).
    sigset_t unblocked;
    sigemptyset(&unblocked);
    for (size_t i = 0; i < CRASH_SIGNAL_COUNT; i++) {
        sigaction(crash_signals[i], &action, &earlier[i]);
        if (earlier[i].sa_handler == SIG_IGN) {  // ignored by whoever started us (trap '' QUIT): it stays so
            sigaction(crash_signals[i], &earlier[i], NULL);
            continue;
        }
        sigaddset(&unblocked, crash_signals[i]);
    }
    pthread_sigmask(SIG_UNBLOCK, &unblocked, NULL);
    if (!exit_hook_set) {
        atexit(on_exit_hook);
        exit_hook_set = 1;
    }
    return pipe_ends[0];
}

int conf_signal_is_ignored(int signal) {
    struct sigaction current;
    return sigaction(signal, NULL, &current) == 0 && current.sa_handler == SIG_IGN;
}
