internal import CSQLite

/// The handler of `Connection.setProgressHandler` and the statement it measures.
final class ProgressBox {
    let handler: (Int64) -> Void
    var statement: OpaquePointer?
    init(handler: @escaping (Int64) -> Void) { self.handler = handler }
}

extension Connection {
    /// Calls `handler` every `instructions` virtual-machine instructions of the
    /// statements `execute` runs, with the rows the running statement has visited
    /// in full-table scans so far (`SQLITE_STMTSTATUS_FULLSCAN_STEP`): for a table
    /// rebuild or an index build, the rows done. `nil` removes it.
    ///
    /// The handler runs inside `sqlite3_step` on this thread: it must not use the
    /// connection. Its cost is one call per `instructions` instructions.
    package func setProgressHandler(every instructions: Int32 = 200_000, _ handler: ((Int64) -> Void)?) {
        guard let handler else {
            sqlite3_progress_handler(db, 0, nil, nil)
            progressBox = nil
            return
        }
        let box = ProgressBox(handler: handler)
        progressBox = box
        sqlite3_progress_handler(
            db, instructions,
            { context in
                guard let context else { return 0 }
                let box = Unmanaged<ProgressBox>.fromOpaque(context).takeUnretainedValue()
                let scanned =
                    box.statement.map { Int64(sqlite3_stmt_status($0, SQLITE_STMTSTATUS_FULLSCAN_STEP, 0)) } ?? 0
                box.handler(scanned)
                return 0
            }, Unmanaged.passUnretained(box).toOpaque())
    }
}

/// The check of `Connection.stopStatements(when:)`.
final class InterruptCheckBox {
    let isCancelled: () -> Bool
    init(_ isCancelled: @escaping () -> Bool) { self.isCancelled = isCancelled }
}

extension Connection {
    /// Makes every statement of this connection fail with `SQLITE_INTERRUPT` once
    /// `isCancelled` returns true: the running one and any started later (asked every
    /// 1,000 virtual-machine instructions). `sqlite3_interrupt` alone stops only the
    /// statements running at that moment, and a command that goes on to its next
    /// statement would write on. Replaces any progress handler; `nil` removes it.
    package func stopStatements(when isCancelled: (() -> Bool)?) {
        // Closed after a failure (its store proven unchanged): nothing to remove.
        guard isOpen else {
            interruptCheckBox = nil
            return
        }
        guard let isCancelled else {
            sqlite3_progress_handler(db, 0, nil, nil)
            interruptCheckBox = nil
            return
        }
        let box = InterruptCheckBox(isCancelled)
        interruptCheckBox = box
        sqlite3_progress_handler(
            db, 1000,
            { context in
                guard let context else { return 0 }
                return Unmanaged<InterruptCheckBox>.fromOpaque(context).takeUnretainedValue().isCancelled() ? 1 : 0
            }, Unmanaged.passUnretained(box).toOpaque())
    }
}
