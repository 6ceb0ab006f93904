extension Connection {
    /// How a transaction takes its locks (https://sqlite.org/lang_transaction.html).
    public enum TransactionKind: Sendable, Hashable {
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
    public func transaction<T>(_ kind: TransactionKind = .immediate, _ body: () throws -> T) throws -> T {
        try cachedStatement(kind.beginSQL).execute()
        let result: T
        do {
            result = try body()
            try cachedStatement("COMMIT TRANSACTION").execute()
        } catch {
            rollbackAfterFailure()
            throw error
        }
        return result
    }

    /// Runs `body` inside `SAVEPOINT name`: releases it when `body` returns; when it
    /// throws, rolls back to the savepoint, releases it and rethrows. Nests inside
    /// transactions and other savepoints; outside a transaction it is one.
    public func savepoint<T>(_ name: String, _ body: () throws -> T) throws -> T {
        let quotedName = Self.quoteIdentifier(name)
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
