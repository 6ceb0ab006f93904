import Foundation
package import SQLiteStore

/// Cancels a running `apply` from another thread — a SIGINT or SIGTERM handler, a
/// deploy tool's timeout: the SQLite statement running stops
/// (`sqlite3_interrupt`, safe from any thread), the migration rolls back, and
/// `apply` throws `MigrationError` of kind `interrupted` once the store is proven
/// unchanged. A cancellation that comes after the commit changes nothing.
public final class MigrationCancellation: Sendable {
    /// The connection it may interrupt (from another thread: the one call SQLite
    /// allows there) and whether `cancel()` was called.
    private struct State {
        var connection: Connection?
        var cancelled = false
    }
    private let state = Locked(State())

    /// A cancellation not yet requested.
    public init() {}

    /// Whether `cancel()` was called.
    public var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Requests the cancellation.
    public func cancel() {
        state.withLock { state in
            state.cancelled = true
            state.connection?.interrupt()
        }
    }

    /// Lets this cancellation stop a batch request or a load on `store`: the
    /// running statement and every later one fail, so the transaction rolls back
    /// and the command reports the interruption. Call `release(_:)` before closing.
    package func guardStatements(of store: Store) {
        attach(store.connection)
        store.connection.stopStatements { [weak self] in self?.isCancelled ?? false }
    }

    /// Undoes `guardStatements(of:)`.
    package func release(_ store: Store) {
        detach()
        store.connection.stopStatements(when: nil)
    }

    func attach(_ connection: Connection) {
        state.withLock { state in
            state.connection = connection
            if state.cancelled { connection.interrupt() }
        }
        // A function that runs long inside one call (a backtracking regular
        // expression) asks too: `sqlite3_interrupt` is seen only between steps.
        connection.functionCancellation = { [weak self] in self?.isCancelled ?? false }
    }

    func detach() {
        let detached = state.withLock { state in
            defer { state.connection = nil }
            return state.connection
        }
        detached?.functionCancellation = nil
    }
}
