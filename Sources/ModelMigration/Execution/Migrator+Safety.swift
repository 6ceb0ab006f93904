import DataModel
import Foundation
import SQLiteStore

extension Migrator {
    /// Takes the store's write lock and runs `body` in that transaction, which
    /// commits or rolls back as `body` decides (a dry run rolls back); when `body` or
    /// the commit throws, it is rolled back. The backup, when asked for, is taken by
    /// `body`, under this lock (`StoreBackup`).
    ///
    /// `BEGIN EXCLUSIVE`: in rollback-journal mode a migration needs readers out
    /// anyway (to spill its cache and to commit), and waiting for them once, at the
    /// start, bounded by `timeout`, is the only wait; an `IMMEDIATE` transaction
    /// would wait again at every cache spill and at the commit. In WAL mode it is
    /// the same as `IMMEDIATE`, and readers go on reading.
    func inLockedTransaction<T>(
        _ store: Store, plan: MigrationPlan, options: Options,
        _ body: () throws -> (T, Connection.TransactionCompletion)
    ) throws -> T {
        let connection = store.connection
        connection.busyTimeout = max(0, options.timeout)
        var began = false
        var result: T?
        do {
            try connection.inTransaction(.exclusive) {
                began = true
                let (value, completion) = try body()
                result = value
                return completion
            }
        } catch let error where !began {
            guard let error = error as? SQLiteError else { throw error }
            if error.kind == .busy || error.kind == .locked {
                let who = LockHolders.describe(path: store.resolvedPath).map { " (held by \($0))" } ?? ""
                throw MigrationError(
                    kind: .locked,
                    message: """
                        \(plan.storePath): another migration, writer or reader holds the store\(who); \
                        waited \(Self.seconds(options.timeout)) s (--timeout); nothing was changed
                        """)
            }
            throw StoreError.from(error, path: plan.storePath)
        }
        guard let result else {
            throw MigrationError(
                kind: .stepFailed,
                message: "\(plan.storePath): the migration's transaction ended without a result; nothing was changed")
        }
        return result
    }

    static func seconds(_ value: Double) -> String {
        // Int(exactly:) is nil beyond Int's range (and for infinity), where Int(_:) traps.
        value == value.rounded()
            ? Int(exactly: value).map(String.init) ?? value.description : String(format: "%.1f", value)
    }

    /// After a failure under the lock: rolls back; when SQLite could not, closes the
    /// connection and lets a new one replay the hot journal; then compares the store
    /// with its fingerprint from before the first write. Returns the error to
    /// report: the original one when the store is proven unchanged.
    func restore(_ store: Store, to before: StoreFingerprint, after error: any Error) -> any Error {
        let reported = StoreFingerprint.proveUnchanged(store, before: before, after: error)
        return (reported as? UnprovenWrite).map(MigrationError.init) ?? reported
    }
}

extension MigrationError {
    /// A failed write whose store could not be proven unchanged, in a migration's
    /// terms: replaced by another process (`storeChanged`), or not proven
    /// (`restoreFailed`, after which a backup is kept: `Migrator.settle`).
    init(_ unproven: UnprovenWrite) {
        switch unproven.kind {
        case .replaced: self.init(kind: .storeChanged, message: unproven.message)
        case .unproven: self.init(kind: .restoreFailed, message: unproven.message)
        }
    }
}
