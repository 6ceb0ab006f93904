#include "signal_pipe.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t pipe_fd = -1;

static void on_signal(int number) {
    int saved = errno;
    int fd = pipe_fd;
    if (fd >= 0) {
        unsigned char byte = (unsigned char)number;
        // A full pipe drops the byte: a signal is already waiting to be read.
        (void)!write(fd, &byte, 1);
    }
    errno = saved;
}

int mm_signal_pipe_install(int write_fd) {
    pipe_fd = write_fd;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    if (sigaction(SIGINT, &action, NULL) != 0 || sigaction(SIGTERM, &action, NULL) != 0) {
        int code = errno;
        mm_signal_pipe_restore();
        return code;
    }
    // A blocked mask is inherited across exec (a parent that blocks the signals,
    // as test runners and some process supervisors do): unblock them here, or the
    // handler never runs and the signal waits until the process ends.
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    return pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

void mm_signal_pipe_restore(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = SIG_DFL;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, NULL);
    sigaction(SIGTERM, &action, NULL);
    pipe_fd = -1;
}
