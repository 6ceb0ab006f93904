internal import CSQLite

extension Connection {
    /// How a transaction takes its locks (https://sqlite.org/lang_transaction.html).
    package enum TransactionKind: Sendable, Hashable {
        /// Locks on first read or write; a later write may fail with `busy`.
        case deferred
        /// Takes the write lock at `BEGIN`, so a write conflict surfaces there, after the
        /// busy timeout, and not halfway through the work.
        case immediate
        /// As `immediate`; in rollback-journal mode readers are locked out too.
        case exclusive

        var beginSQL: String {
            switch self {
            case .deferred: "BEGIN DEFERRED TRANSACTION"
            case .immediate: "BEGIN IMMEDIATE TRANSACTION"
            case .exclusive: "BEGIN EXCLUSIVE TRANSACTION"
            }
        }
    }

    /// Runs `body` in a transaction: commits when it returns, rolls back when it (or the
    /// commit) throws, and rethrows that error.
    ///
    /// Transactions don't nest; inside one, use ``savepoint(_:_:)``.
    package func transaction<T>(_ kind: TransactionKind = .immediate, _ body: () throws -> T) throws -> T {
        var result: T?
        try inTransaction(kind) {
            result = try body()
            return .commit
        }
        return result!
    }

    /// What a transaction's body decides: keep its work or undo it.
    package enum TransactionCompletion: Sendable, Hashable {
        /// `COMMIT`.
        case commit
        /// `ROLLBACK` (a dry run, a retry).
        case rollback
    }

    /// Runs `body` in a transaction and commits or rolls back as it returns; when it
    /// (or the commit) throws, rolls back and rethrows that error. The one place a
    /// transaction begins and ends (GRDB's `inTransaction`).
    ///
    /// Transactions don't nest; inside one, use ``savepoint(_:_:)``.
    package func inTransaction(_ kind: TransactionKind = .immediate, _ body: () throws -> TransactionCompletion) throws
    {
        try cachedStatement(kind.beginSQL).execute()
        do {
            switch try body() {
            case .commit:
                // A stop requested while the work ran (a signal) wins over the
                // commit: COMMIT runs too few instructions for the check to see it.
                if interruptCheckBox?.isCancelled() == true {
                    throw SQLiteError(resultCode: SQLITE_INTERRUPT, message: "interrupted", sql: "COMMIT TRANSACTION")
                }
                try cachedStatement("COMMIT TRANSACTION").execute()
            case .rollback: try cachedStatement("ROLLBACK TRANSACTION").execute()
            }
        } catch {
            rollbackAfterFailure()
            throw error
        }
    }

    /// Runs `body` inside `SAVEPOINT name`: releases it when `body` returns; when it
    /// throws, rolls back to the savepoint, releases it and rethrows. Nests inside
    /// transactions and other savepoints; outside a transaction it is one.
    package func savepoint<T>(_ name: String, _ body: () throws -> T) throws -> T {
        let quotedName = SQLText.q(name)
        let isOutermost = !isInTransaction
        try execute("SAVEPOINT \(quotedName)")
        let result: T
        do {
            result = try body()
            try execute("RELEASE SAVEPOINT \(quotedName)")
        } catch {
            // ROLLBACK TO undoes the work but keeps the savepoint open
            // (https://sqlite.org/lang_savepoint.html); RELEASE closes it.
            try? execute("ROLLBACK TO SAVEPOINT \(quotedName)")
            try? execute("RELEASE SAVEPOINT \(quotedName)")
            // Releasing the outermost savepoint commits, which can fail (busy); the
            // transaction it started must not stay open.
            if isOutermost { rollbackAfterFailure() }
            throw error
        }
        return result
    }

    /// Rolls back the open transaction, if any, after a failure the caller rethrows.
    private func rollbackAfterFailure() {
        // After SQLITE_FULL, IOERR, BUSY, NOMEM or INTERRUPT SQLite may already have rolled
        // back ("Response To Errors Within A Transaction", lang_transaction.html), and a
        // second ROLLBACK would fail.
        guard isInTransaction else { return }
        // The caller rethrows the original error; a failing ROLLBACK must not replace it.
        try? cachedStatement("ROLLBACK TRANSACTION").execute()
    }
}
