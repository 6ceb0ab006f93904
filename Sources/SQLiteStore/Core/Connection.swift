internal import CSQLite
import Foundation

/// A connection to an SQLite database file.
///
/// Not `Sendable`: it owns an `sqlite3` handle opened with `SQLITE_OPEN_NOMUTEX`, so it
/// must stay on one thread (or one actor) at a time. Close it with ``close()`` to see
/// close errors; otherwise it is closed when released.
package final class Connection {
    /// How to open the database file.
    package enum OpenMode: Sendable, Hashable {
        /// Reading only; writes fail with ``SQLiteError/Kind/readOnly``.
        case readOnly
        /// Reading and writing an existing file.
        case readWrite
        /// Reading and writing, creating the file if it does not exist.
        case readWriteCreate

        var flags: Int32 {
            switch self {
            case .readOnly: SQLITE_OPEN_READONLY
            case .readWrite: SQLITE_OPEN_READWRITE
            case .readWriteCreate: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
            }
        }
    }

    /// The path the connection was opened with.
    package let path: String
    private var handle: OpaquePointer?
    private var statementCache: [String: Statement] = [:]
    /// The progress handler installed by `setProgressHandler`, and the statement
    /// `execute` is running.
    var progressBox: ProgressBox?
    /// The check `stopStatements(when:)` installed, kept alive while installed.
    var interruptCheckBox: InterruptCheckBox?
    /// Asked by SQL functions that can run long inside one call (`mm_replace_matches`):
    /// true stops them, and their statement fails with `SQLITE_INTERRUPT`. Set and
    /// read on the thread that uses the connection.
    package var functionCancellation: (() -> Bool)?

    /// How long, in seconds, to retry when another connection holds a conflicting lock
    /// before failing with ``SQLiteError/Kind/busy``.
    package var busyTimeout: Double {
        didSet { applyBusyTimeout() }
    }

    /// Opens the database at `path`.
    ///
    /// Opening is lazy in SQLite: a file that is not a database opens fine and fails with
    /// ``SQLiteError/Kind/notADatabase`` when first read.
    package init(path: String, mode: OpenMode = .readWrite, busyTimeout: Double = 5) throws(SQLiteError) {
        _ = Self.configured
        var handle: OpaquePointer?
        let flags = mode.flags | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            // sqlite3_open_v2 allocates a handle even when it fails, and only that handle
            // holds the error message: read it, then close it (openDb in SQLite's main.c).
            defer { sqlite3_close_v2(handle) }
            try SQLiteError.fail(code, handle, path: path)
        }
        sqlite3_extended_result_codes(handle, 1)
        self.path = path
        self.handle = handle
        self.busyTimeout = busyTimeout
        applyBusyTimeout()
        registerPredicateFunctions()
        registerStringFunctions()
        if Self.tracesStatements { sqlite3_trace_v2(handle, UInt32(SQLITE_TRACE_PROFILE), Self.traceStatement, nil) }
    }

    /// Process-wide settings made once, before any connection opens (a `static let`
    /// runs once, and every thread opening a connection waits for it):
    /// `sqlite3_config` may only run before SQLite initialises.
    private static let configured: Bool = mm_sqlite3_disable_memory_statistics() == SQLITE_OK

    /// `MIGRATE_TRACE_SQL=1`: every statement this process runs, with its time, on
    /// stderr (where a slow `plan` or `apply` spends its time).
    static let tracesStatements =
        ProcessInfo.processInfo.environment["MIGRATE_TRACE_SQL"].map { !$0.isEmpty && $0 != "0" } ?? false

    private static let traceStatement:
        @convention(c) (UInt32, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Int32 =
            {
                _, _, statement, nanoseconds in
                guard let statement, let nanoseconds else { return 0 }
                let handle = OpaquePointer(statement)
                let text =
                    sqlite3_expanded_sql(handle).map { pointer -> String in
                        defer { sqlite3_free(pointer) }
                        return String(cString: pointer)
                    } ?? sqlite3_sql(handle).map { String(cString: $0) } ?? "?"
                let milliseconds = Double(nanoseconds.load(as: Int64.self)) / 1_000_000
                let line =
                    String(format: "sql %9.3f ms  ", milliseconds) + text.replacingOccurrences(of: "\n", with: " ")
                    + "\n"
                // A trace that cannot be written (stderr closed) is dropped, never a trap.
                try? FileHandle.standardError.write(contentsOf: Data(line.utf8))
                return 0
            }

    deinit {
        statementCache.removeAll()
        // close_v2 defers the real close until statements the caller still holds are
        // finalized, so releasing a connection never invalidates a live statement.
        if let handle { sqlite3_close_v2(handle) }
    }

    /// Finalizes cached statements and closes the connection.
    ///
    /// Fails with ``SQLiteError/Kind/busy`` while statements prepared on this connection
    /// are still alive; the connection then stays open. Using a closed connection is a
    /// programmer error and traps.
    package func close() throws(SQLiteError) {
        guard let handle else { return }
        statementCache.removeAll()
        let code = sqlite3_close(handle)
        if code == SQLITE_BUSY {
            // Name the statements still alive: a programmer error worth a clear message.
            var open: [String] = []
            var statement = sqlite3_next_stmt(handle, nil)
            while let current = statement, open.count < 3 {
                open.append(sqlite3_sql(current).map { String(cString: $0) } ?? "?")
                statement = sqlite3_next_stmt(handle, current)
            }
            try SQLiteError.fail(
                code, handle, message: "unable to close: statements still in use: \(open.joined(separator: " | "))",
                sql: nil, path: path)
        }
        try SQLiteError.check(code, handle, path: path)
        self.handle = nil
    }

    /// Whether `close()` has not been called yet.
    var isOpen: Bool { handle != nil }

    /// The open handle; a closed connection is a programmer error.
    var db: OpaquePointer {
        guard let handle else { preconditionFailure("\(path): connection used after close()") }
        return handle
    }

    private func applyBusyTimeout() {
        let milliseconds = (busyTimeout * 1000).rounded()
        sqlite3_busy_timeout(db, Int32(clamping: Int64(max(0, min(milliseconds, Double(Int32.max))))))
    }

    // MARK: - State

    /// Whether the database cannot be written (opened read-only, or a read-only file).
    package var isReadOnly: Bool { sqlite3_db_readonly(db, "main") == 1 }

    /// Whether a transaction is open (the connection is not in autocommit mode).
    package var isInTransaction: Bool { sqlite3_get_autocommit(db) == 0 }

    /// The rowid of the last successful `INSERT` on this connection.
    package var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(db) }

    /// Rows changed by the last `INSERT`, `UPDATE` or `DELETE`.
    package var changes: Int { Int(sqlite3_changes64(db)) }

    /// Rows changed since the connection was opened.
    package var totalChanges: Int { Int(sqlite3_total_changes64(db)) }

    /// Makes the running statement fail with ``SQLiteError/Kind/interrupted`` at its next
    /// opportunity.
    package func interrupt() {
        sqlite3_interrupt(db)
    }

    // MARK: - Statements

    /// Prepares one SQL statement. Text after it other than whitespace and comments is an
    /// error; run scripts with ``execute(_:)``.
    package func prepare(_ sql: String) throws(SQLiteError) -> Statement {
        try compile(sql, persistent: false)
    }

    /// The SQL of the statements the cache holds (for tests of query plans).
    package var cachedStatementTexts: [String] { Array(statementCache.keys) }

    /// Returns a prepared statement for `sql`, reset and with cleared bindings, from a
    /// cache keyed by the SQL text; prepares it on first use.
    ///
    /// Cached statements are shared: don't ask for one while it is still stepping
    /// through rows for another caller.
    package func cachedStatement(_ sql: String) throws(SQLiteError) -> Statement {
        if let statement = statementCache[sql] {
            statement.reset()
            statement.clearBindings()
            return statement
        }
        let statement = try compile(sql, persistent: true)
        statementCache[sql] = statement
        return statement
    }

    private func compile(_ sql: String, persistent: Bool) throws(SQLiteError) -> Statement {
        let db = self.db
        // A hint that the statement will be reused many times (sqlite3_prepare_v3).
        let flags = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        var handle: OpaquePointer?
        var hasMoreStatements = false
        let code = sql.withCString { start -> Int32 in
            var tail: UnsafePointer<CChar>?
            let code = sqlite3_prepare_v3(db, start, Int32(sql.utf8.count + 1), flags, &handle, &tail)
            if code == SQLITE_OK, let tail, tail.pointee != 0 {
                // Whitespace and comments prepare to no statement; anything else is
                // a second statement that would silently not run.
                var extra: OpaquePointer?
                let extraCode = sqlite3_prepare_v3(db, tail, -1, 0, &extra, nil)
                hasMoreStatements = extraCode != SQLITE_OK || extra != nil
                sqlite3_finalize(extra)
            }
            return code
        }
        try SQLiteError.check(code, db, sql: sql)
        guard let handle else {
            try SQLiteError.fail(SQLITE_MISUSE, nil, message: "no SQL statement to prepare", sql: sql)
        }
        guard !hasMoreStatements else {
            sqlite3_finalize(handle)
            try SQLiteError.fail(
                SQLITE_MISUSE, nil,
                message: "more than one SQL statement; run scripts with execute(_:)", sql: sql)
        }
        return Statement(handle: handle, sql: sql)
    }

    /// Prepares one statement and binds its arguments.
    package func prepare(_ statement: SQLFragment) throws(SQLiteError) -> Statement {
        let prepared = try prepare(statement.sql)
        try prepared.bind(statement.arguments)
        return prepared
    }

    /// Runs every statement of an SQL script in order, discarding rows.
    ///
    /// An error names the statement that failed, not the whole script.
    package func execute(_ sql: String) throws(SQLiteError) {
        let db = self.db
        let failure = sql.withCString { start -> SQLiteError? in
            let end = start + sql.utf8.count
            var next: UnsafePointer<CChar>? = start
            while let current = next, current < end {
                var statement: OpaquePointer?
                let code = sqlite3_prepare_v2(db, current, Int32(end - current), &statement, &next)
                guard code == SQLITE_OK else {
                    return Self.error(code, db, sql: Self.firstStatement(from: current, to: end))
                }
                guard let statement else {
                    // Only whitespace or comments; stop at a NUL, where SQLite stops reading.
                    if next == current { break }
                    continue
                }
                defer { sqlite3_finalize(statement) }
                progressBox?.statement = statement
                defer { progressBox?.statement = nil }
                var stepCode: Int32
                repeat { stepCode = sqlite3_step(statement) } while stepCode == SQLITE_ROW
                guard stepCode == SQLITE_DONE else {
                    return Self.error(stepCode, db, sql: Self.firstStatement(from: current, to: next ?? end))
                }
            }
            return nil
        }
        if let failure { throw failure }
    }

    /// The typed-throws path out of a non-throwing closure: the error `fail` would throw.
    private static func error(_ code: Int32, _ db: OpaquePointer, sql: String) -> SQLiteError {
        do throws(SQLiteError) {
            try SQLiteError.fail(code, db, sql: sql)
        } catch {
            return error
        }
    }

    /// The text of the statement at the start of `start..<end`, for error messages:
    /// leading comments and whitespace left out, and, when SQLite could not prepare it,
    /// cut at the first `;` that completes a statement (sqlite3_complete knows strings,
    /// comments and trigger bodies).
    private static func firstStatement(
        from start: UnsafePointer<CChar>, to end: UnsafePointer<CChar>
    ) -> String {
        var bytes = Array(UnsafeRawBufferPointer(start: start, count: end - start))
        bytes.removeFirst(leadingTriviaCount(bytes))
        for position in bytes.indices where bytes[position] == UInt8(ascii: ";") {
            var prefix = Array(bytes[...position])
            prefix.append(0)
            let isComplete = prefix.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { sqlite3_complete($0.baseAddress) != 0 }
            }
            if isComplete {
                bytes.removeSubrange((position + 1)...)
                break
            }
        }
        while let last = bytes.last, last == 0x20 || (0x09...0x0D).contains(last) { bytes.removeLast() }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The number of leading bytes that are whitespace or SQL comments.
    private static func leadingTriviaCount(_ bytes: [UInt8]) -> Int {
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x20 || (0x09...0x0D).contains(byte) {
                index += 1
            } else if byte == UInt8(ascii: "-"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "-") {
                index = bytes[index...].firstIndex(of: 0x0A) ?? bytes.count
            } else if byte == UInt8(ascii: "/"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "*") {
                var close = index + 2
                while close + 1 < bytes.count,
                    !(bytes[close] == UInt8(ascii: "*") && bytes[close + 1] == UInt8(ascii: "/"))
                {
                    close += 1
                }
                index = min(close + 2, bytes.count)
            } else {
                break
            }
        }
        return index
    }

    // MARK: - Single values

    /// The first column of the first row, or `nil` when there is no row.
    package func scalar(_ sql: String, _ arguments: DatabaseValue...) throws(SQLiteError) -> DatabaseValue? {
        try firstRow(sql, arguments) { $0.value(at: 0) }
    }

    /// The first column of the first row as an integer; `nil` for no row or `NULL`.
    package func scalarInt64(_ sql: String, _ arguments: DatabaseValue...) throws(SQLiteError) -> Int64? {
        try scalarInt64(sql, arguments: arguments)
    }

    /// The first column of the first row as an integer, `arguments` bound in order.
    package func scalarInt64(_ sql: String, arguments: [DatabaseValue]) throws(SQLiteError) -> Int64? {
        try firstRow(sql, arguments) { $0.isNull(at: 0) ? nil : $0.int64(at: 0) } ?? nil
    }

    /// The first column of the first row of `statement` as an integer, its arguments
    /// bound; `nil` for no row or `NULL`.
    package func scalarInt64(_ statement: SQLFragment) throws(SQLiteError) -> Int64? {
        try scalarInt64(statement.sql, arguments: statement.arguments)
    }

    /// Runs one statement, its arguments bound (or, without arguments, a script of
    /// statements as ``execute(_:)-(String)`` does).
    package func execute(_ statement: SQLFragment) throws(SQLiteError) {
        guard !statement.arguments.isEmpty else { return try execute(statement.sql) }
        try prepare(statement).execute()
    }

    /// The first column of the first row as a double; `nil` for no row or `NULL`.
    package func scalarDouble(_ sql: String, _ arguments: DatabaseValue...) throws(SQLiteError) -> Double? {
        try firstRow(sql, arguments) { $0.isNull(at: 0) ? nil : $0.double(at: 0) } ?? nil
    }

    /// The first column of the first row as text; `nil` for no row or `NULL`.
    package func scalarString(_ sql: String, _ arguments: DatabaseValue...) throws(SQLiteError) -> String? {
        try firstRow(sql, arguments) { $0.isNull(at: 0) ? nil : $0.string(at: 0) } ?? nil
    }

    /// Runs a cached statement with `arguments` and reads its first row, if any.
    func firstRow<T>(
        _ sql: String, _ arguments: [DatabaseValue], _ read: (Statement) -> T
    ) throws(SQLiteError) -> T? {
        let statement = try cachedStatement(sql)
        try statement.bind(arguments)
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return read(statement)
    }
}

// A connection belongs to one thread at a time (SQLITE_OPEN_NOMUTEX); no one may
// declare it Sendable.
@available(*, unavailable)
extension Connection: Sendable {}
