import Foundation

/// Stops a fleet run from another thread (a signal handler): no store is started
/// after it, and every migration under way is cancelled, rolling back.
public final class FleetStop: Sendable {
    private struct State {
        var stopped = false
        var running: [ObjectIdentifier: MigrationCancellation] = [:]
        var interruptedWork = false
    }
    private let state = Locked(State())

    /// A stop not yet requested.
    public init() {}

    /// Whether `stop()` was called.
    public var isStopped: Bool { state.withLock { $0.stopped } }

    /// Whether the stop changed the run: a migration under way was cancelled, or a
    /// store was left unstarted. A signal after the last store finished did not.
    public var stoppedWork: Bool { state.withLock { $0.interruptedWork } }

    /// Stops the run: no new store, and the migrations under way roll back.
    public func stop() {
        let cancellations = state.withLock { state -> [MigrationCancellation] in
            state.stopped = true
            if !state.running.isEmpty { state.interruptedWork = true }
            return Array(state.running.values)
        }
        for cancellation in cancellations { cancellation.cancel() }
    }

    /// A store the stop left unstarted.
    func skipped() {
        state.withLock { $0.interruptedWork = true }
    }

    /// A cancellation for one store's migration, cancelled at once when the run is
    /// already stopping.
    func register(_ cancellation: MigrationCancellation) {
        let cancelNow = state.withLock { state -> Bool in
            state.running[ObjectIdentifier(cancellation)] = cancellation
            // A store that starts as the stop arrives is stopped work too: the run
            // ends interrupted (exit 128 + signal), never as a failed store (exit 1).
            if state.stopped { state.interruptedWork = true }
            return state.stopped
        }
        if cancelNow { cancellation.cancel() }
    }

    func unregister(_ cancellation: MigrationCancellation) {
        _ = state.withLock { $0.running.removeValue(forKey: ObjectIdentifier(cancellation)) }
    }
}
