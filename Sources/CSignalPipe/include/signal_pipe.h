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

// From the process's start until a command installs its pipe (fleet runs, which
// promise a record for every store): the stopping signals are recorded, not acted on.
void mm_signal_early_capture(void);

// For every other command: the default actions again, and a signal recorded since
// the start acts now.
void mm_signal_early_release(void);

/// 1 when `number` is one of the stopping signals the pipe watches, else 0.
int mm_signal_pipe_watches(int number);

#endif
