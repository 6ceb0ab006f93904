#ifndef MM_SIGNAL_PIPE_H
#define MM_SIGNAL_PIPE_H

/// The stopping signals (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGXCPU, SIGUSR1,
/// SIGUSR2) as bytes on a pipe (the self-pipe pattern): the handler only write()s
/// the signal's number, which is async-signal-safe, and a thread of the program
/// reads the pipe and cancels the work in progress. No libdispatch: a signal source
/// needs a manager thread, and when a thread cannot be created (a small `ulimit -v`)
/// libdispatch retries forever instead of failing.

/// Sends each stopping signal to `write_fd` as one byte. Returns 0, or errno.
int mm_signal_pipe_install(int write_fd);

/// Puts back the default actions of the stopping signals and stops writing.
void mm_signal_pipe_restore(void);

/// 1 when `number` is one of the stopping signals the pipe watches, else 0.
int mm_signal_pipe_watches(int number);

#endif
