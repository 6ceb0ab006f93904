import Foundation
import SQLiteStore

/// Cancels a running `apply` from another thread — a SIGINT or SIGTERM handler, a
/// deploy tool's timeout: the SQLite statement running stops
/// (`sqlite3_interrupt`, safe from any thread), the migration rolls back, and
/// `apply` throws `MigrationError` of kind `interrupted` once the store is proven
/// unchanged. A cancellation that comes after the commit changes nothing.
///
/// `@unchecked Sendable`: the connection it may interrupt is only touched under
/// the lock, and interrupting is the one call SQLite allows from another thread.
public final class MigrationCancellation: @unchecked Sendable {
    private let lock = NSLock()
    private var connection: Connection?
    private var cancelled = false

    /// A cancellation not yet requested.
    public init() {}

    /// Whether `cancel()` was called.
    public var isCancelled: Bool { lock.withLock { cancelled } }

    /// Requests the cancellation.
    public func cancel() {
        lock.withLock {
            cancelled = true
            connection?.interrupt()
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
        lock.withLock {
            self.connection = connection
            if cancelled { connection.interrupt() }
        }
        // A function that runs long inside one call (a backtracking regular
        // expression) asks too: `sqlite3_interrupt` is seen only between steps.
        connection.functionCancellation = { [weak self] in self?.isCancelled ?? false }
    }

    func detach() {
        let detached = lock.withLock {
            defer { connection = nil }
            return connection
        }
        detached?.functionCancellation = nil
    }
}
