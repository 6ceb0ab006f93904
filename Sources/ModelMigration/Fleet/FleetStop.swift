import Foundation

/// Stops a fleet run from another thread (a signal handler): no store is started
/// after it, and every migration under way is cancelled, rolling back.
public final class FleetStop: Sendable {
    private struct State {
        var stopped = false
        var running: [ObjectIdentifier: MigrationCancellation] = [:]
        var interruptedWork = false
        var signal: Int32?
    }
    private let state = Locked(State())

    /// A stop not yet requested.
    public init() {}

    /// Whether `stop()` was called.
    public var isStopped: Bool { state.withLock { $0.stopped } }

    /// Whether the stop changed the run: a migration under way was cancelled, or a
    /// store was left unstarted. A signal after the last store finished did not.
    public var stoppedWork: Bool { state.withLock { $0.interruptedWork } }

    /// The signal that stopped the run, when one did.
    public var signal: Int32? { state.withLock { $0.signal } }

    /// Stops the run: no new store, and the migrations under way roll back.
    /// `signal`: the signal that asked for it, which the outcomes of the stores it
    /// stops name (`interrupted`, exit 128 + signal).
    public func stop(signal: Int32? = nil) {
        let cancellations = state.withLock { state -> [MigrationCancellation] in
            state.stopped = true
            if state.signal == nil { state.signal = signal }
            if !state.running.isEmpty { state.interruptedWork = true }
            return Array(state.running.values)
        }
        for cancellation in cancellations { cancellation.cancel() }
    }

    /// A store the stop left unstarted: its outcome says so (`interrupted`, with
    /// ``FleetStoreOutcome/started`` false), so that a run's log names every store.
    package func skipped(_ path: String) -> FleetStoreOutcome {
        let signal = state.withLock { state in
            state.interruptedWork = true
            return state.signal
        }
        var outcome = FleetStoreOutcome(
            path: path, status: .interrupted(signal: signal ?? SIGINT),
            message: "not started: the run was stopped; the store is unchanged (rerun the same command to finish)",
            seconds: 0)
        outcome.started = false
        return outcome
    }

    /// The list itself was cut short by the stop (standard input not read to its
    /// end): the run did not reach every store, so it ends interrupted.
    func listCutShort() {
        state.withLock { $0.interruptedWork = true }
    }

    /// What a stopped run reports for an entry of the store list it did not reach:
    /// a store not started, or what the list says of a path that is no store to
    /// handle (a duplicate, an unreadable list).
    package func unstarted(_ entry: FleetStoreList.Entry) -> FleetStoreOutcome {
        guard case .store(let path) = entry else { return FleetRunner.listOutcome(entry) }
        return skipped(path)
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
