#include "signal_pipe.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t pipe_fd = -1;
// A signal that came before the pipe existed (`mm_signal_early_capture`): handed to
// the pipe when it is installed, or re-raised by `mm_signal_early_release`.
static volatile sig_atomic_t pending = 0;

// Every signal whose default action would end the process in the middle of a
// write: SIGINT (Ctrl-C), SIGTERM (a deploy job stopped), SIGHUP (the terminal
// closed, an ssh session dropped), SIGQUIT (Ctrl-\), SIGXCPU (a CPU-time limit's
// soft warning; the hard limit's SIGKILL follows, which only the journal survives)
// and SIGUSR1/SIGUSR2 (sent by supervisors for "reload", whose default is to
// terminate). Each cancels the work, which rolls back. SIGPIPE is ignored by the
// tool instead: a closed stdout is EPIPE on the write, which the output layer keeps.
static const int watched[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGXCPU, SIGUSR1, SIGUSR2};
static const int watched_count = (int)(sizeof watched / sizeof watched[0]);

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

static void on_early_signal(int number) {
    if (pending == 0) pending = number;
}

// The actions the process started with, put back by `mm_signal_early_release`: a
// signal the parent ignored (`nohup`, a shell's `cmd &`) stays ignored.
static struct sigaction inherited[sizeof watched / sizeof watched[0]];

void mm_signal_early_capture(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_early_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    for (int i = 0; i < watched_count; i++) {
        if (sigaction(watched[i], NULL, &inherited[i]) != 0) continue;
        if (inherited[i].sa_handler == SIG_IGN) continue;
        (void)sigaction(watched[i], &action, NULL);
    }
}

void mm_signal_early_release(void) {
    for (int i = 0; i < watched_count; i++) {
        if (inherited[i].sa_handler == SIG_IGN) continue;
        (void)sigaction(watched[i], &inherited[i], NULL);
    }
    int number = pending;
    pending = 0;
    if (number != 0) (void)raise(number);
}

// Which signals the pipe watches: every watched one but those the process ignores.
static int installed[sizeof watched / sizeof watched[0]];

int mm_signal_pipe_install(int write_fd) {
    pipe_fd = write_fd;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    for (int i = 0; i < watched_count; i++) {
        // A signal the parent ignored (`nohup` ignores SIGHUP so that a deploy
        // survives the end of its ssh session) stays ignored: it stops nothing.
        struct sigaction current;
        if (sigaction(watched[i], NULL, &current) == 0 && current.sa_handler == SIG_IGN) {
            installed[i] = 0;
            continue;
        }
        if (sigaction(watched[i], &action, NULL) != 0) {
            int code = errno;
            mm_signal_pipe_restore();
            return code;
        }
        installed[i] = 1;
    }
    // A blocked mask is inherited across exec (a parent that blocks the signals,
    // as test runners and some process supervisors do): unblock them here, or the
    // handler never runs and the signal waits until the process ends.
    sigset_t set;
    sigemptyset(&set);
    for (int i = 0; i < watched_count; i++) sigaddset(&set, watched[i]);
    int code = pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    // A signal captured before the pipe existed is the first one the watcher reads.
    int early = pending;
    pending = 0;
    if (early != 0) on_signal(early);
    return code;
}

void mm_signal_pipe_restore(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = SIG_DFL;
    sigemptyset(&action.sa_mask);
    for (int i = 0; i < watched_count; i++) {
        if (installed[i]) (void)sigaction(watched[i], &action, NULL);
        installed[i] = 0;
    }
    pipe_fd = -1;
}

int mm_signal_pipe_watches(int number) {
    for (int i = 0; i < watched_count; i++) {
        if (watched[i] == number) return 1;
    }
    return 0;
}
