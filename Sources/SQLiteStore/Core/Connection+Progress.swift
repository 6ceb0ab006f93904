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
    public func setProgressHandler(every instructions: Int32 = 200_000, _ handler: ((Int64) -> Void)?) {
        guard let handler else {
            sqlite3_progress_handler(db, 0, nil, nil)
            progressBox = nil
            return
        }
        let box = ProgressBox(handler: handler)
        progressBox = box
        sqlite3_progress_handler(db, instructions, { context in
            guard let context else { return 0 }
            let box = Unmanaged<ProgressBox>.fromOpaque(context).takeUnretainedValue()
            let scanned = box.statement.map { Int64(sqlite3_stmt_status($0, SQLITE_STMTSTATUS_FULLSCAN_STEP, 0)) } ?? 0
            box.handler(scanned)
            return 0
        }, Unmanaged.passUnretained(box).toOpaque())
    }
}
