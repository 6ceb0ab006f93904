internal import CSignalPipe
import Foundation
import ModelMigration

/// The stopping signals while a command writes (SIGINT, SIGTERM, SIGHUP, SIGQUIT,
/// SIGXCPU, SIGUSR1, SIGUSR2; Docs/CLI.md "Signals"): the first one calls `onSignal`
/// (which cancels the work; it rolls back), later ones are ignored until `stop()`.
///
/// The handler writes the signal's number to a pipe; a thread of our own reads it
/// and calls `onSignal`. When that thread cannot be started (a small `ulimit -v`),
/// `init` throws before the store is touched: the command fails fast instead of
/// hanging as a libdispatch signal source would.
final class SignalWatcher: Sendable {
    /// The first signal received, and the watching thread until `stop()` ends it.
    private struct State {
        var number: Int32?
        var thread: OSThread?
    }
    private let state = Locked(State())
    private let readEnd: Int32
    private let writeEnd: Int32

    /// The signal received, if any.
    var received: Int32? { state.withLock { $0.number } }

    init(onSignal: @escaping @Sendable (Int32) -> Void) throws {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            throw WatchError(message: "cannot create a pipe to watch for signals (\(String(cString: strerror(errno))))")
        }
        readEnd = ends[0]
        writeEnd = ends[1]
        _ = fcntl(readEnd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(writeEnd, F_SETFD, FD_CLOEXEC)
        // Non-blocking writes: the handler must never wait on a full pipe.
        _ = fcntl(writeEnd, F_SETFL, fcntl(writeEnd, F_GETFL) | O_NONBLOCK)
        let readEnd = self.readEnd
        do {
            let thread = try OSThread.start(stackSize: 256 << 10) { [self] in
                var byte: UInt8 = 0
                while true {
                    let n = read(readEnd, &byte, 1)
                    if n < 0 && errno == EINTR { continue }
                    // 0 from stop(), or the pipe closed: done.
                    guard n == 1, byte != 0 else { return }
                    let signal = Int32(byte)
                    let first = state.withLock { state -> Bool in
                        if state.number != nil { return false }
                        state.number = signal
                        return true
                    }
                    if first { onSignal(signal) }
                }
            }
            state.withLock { $0.thread = thread }
        } catch {
            close(readEnd)
            close(writeEnd)
            throw WatchError(message: "\(error); nothing was changed")
        }
        let code = mm_signal_pipe_install(writeEnd)
        if code != 0 {
            stop()
            throw WatchError(
                message: "cannot watch for signals (\(String(cString: strerror(code)))); nothing was changed")
        }
    }

    /// Puts back the default actions and ends the watching thread.
    func stop() {
        let running = state.withLock { state -> OSThread? in
            defer { state.thread = nil }
            return state.thread
        }
        guard let thread = running else { return }
        mm_signal_pipe_restore()
        var zero: UInt8 = 0
        // The pipe is non-blocking; if it is full, the thread has bytes to read and
        // reads this one after them.
        while write(writeEnd, &zero, 1) < 0 && (errno == EINTR || errno == EAGAIN) { usleep(1000) }
        thread.join()
        close(readEnd)
        close(writeEnd)
    }

    deinit { stop() }

    /// The watcher could not be set up.
    struct WatchError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}
