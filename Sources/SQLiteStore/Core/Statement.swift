internal import CSQLite
import DataModel

/// A prepared SQL statement.
///
/// Prepare once, then bind and step per row: hot loops never build SQL per row.
/// Parameter indexes are 1-based and column indexes 0-based, as in SQLite.
///
/// Not `Sendable`: it owns an `sqlite3_stmt`, which belongs to its connection's thread.
/// It is finalized when released. A statement may outlive its ``Connection`` object
/// (SQLite keeps the connection alive until the last statement is finalized), but
/// ``Connection/close()`` fails while statements are still alive.
package final class Statement {
    let handle: OpaquePointer
    /// The SQL text the statement was prepared from.
    package let sql: String

    /// Takes ownership of a prepared statement handle.
    init(handle: OpaquePointer, sql: String) {
        self.handle = handle
        self.sql = sql
    }

    deinit {
        sqlite3_finalize(handle)
    }

    private var db: OpaquePointer? { sqlite3_db_handle(handle) }

    /// Whether the statement leaves the database unchanged (`sqlite3_stmt_readonly`).
    package var isReadOnly: Bool { sqlite3_stmt_readonly(handle) != 0 }

    // MARK: - Binding

    /// The number of parameters (the largest parameter index).
    package var parameterCount: Int32 { sqlite3_bind_parameter_count(handle) }

    /// Resets the statement and binds `values` to parameters 1…n; their number must
    /// equal ``parameterCount``.
    package func bind(_ values: [DatabaseValue]) throws(SQLiteError) {
        guard values.count == Int(parameterCount) else {
            try SQLiteError.fail(
                SQLITE_RANGE, nil,
                message: "\(values.count) values for \(parameterCount) parameters", sql: sql)
        }
        reset()
        for (offset, value) in values.enumerated() {
            try bind(value, at: Int32(offset + 1))
        }
    }

    /// Binds `value` to the parameter at the 1-based `index`.
    ///
    /// Text and blobs are copied by SQLite (`SQLITE_TRANSIENT`), so the Swift storage may
    /// go away right after the call.
    package func bind(_ value: DatabaseValue, at index: Int32) throws(SQLiteError) {
        let code: Int32
        switch value {
        case .null:
            code = sqlite3_bind_null(handle, index)
        case .integer(let integer):
            code = sqlite3_bind_int64(handle, index, integer)
        case .real(let real):
            code = sqlite3_bind_double(handle, index, real)
        case .text(var text):
            // An explicit byte count keeps NUL characters inside the text; a nil pointer
            // would bind NULL, so empty text binds a static empty C string.
            code = text.withUTF8 { bytes in
                guard let base = bytes.baseAddress, !bytes.isEmpty else {
                    return sqlite3_bind_text(handle, index, "", 0, sqliteTransient)
                }
                return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                    sqlite3_bind_text64(
                        handle, index, $0, UInt64(bytes.count), sqliteTransient, UInt8(SQLITE_UTF8))
                }
            }
        case .blob(let bytes):
            // A nil pointer would bind NULL: an empty blob is a zero-length zeroblob.
            code = bytes.withUnsafeBytes { raw in
                guard let base = raw.baseAddress, !raw.isEmpty else {
                    return sqlite3_bind_zeroblob(handle, index, 0)
                }
                return sqlite3_bind_blob64(handle, index, base, UInt64(raw.count), sqliteTransient)
            }
        }
        try SQLiteError.check(code, db, sql: sql)
    }

    /// Binds `value` to the named parameter `name` (`:name`, `@name` or `$name`; a bare
    /// name means `:name`).
    package func bind(_ value: DatabaseValue, name: String) throws(SQLiteError) {
        let qualified = name.first.map { ":@$?".contains($0) } == true ? name : ":" + name
        let index = sqlite3_bind_parameter_index(handle, qualified)
        guard index > 0 else {
            try SQLiteError.fail(SQLITE_RANGE, nil, message: "no parameter named \(qualified)", sql: sql)
        }
        try bind(value, at: index)
    }

    /// Makes the statement ready to run again; bindings are kept.
    ///
    /// `sqlite3_reset` repeats the error of the last failed step, which ``step()`` has
    /// already thrown, so it is not reported again.
    package func reset() {
        sqlite3_reset(handle)
    }

    /// Sets every parameter to `NULL`.
    package func clearBindings() {
        sqlite3_clear_bindings(handle)
    }

    // MARK: - Running

    /// Advances to the next row: `true` when a row is available, `false` when done.
    @discardableResult
    package func step() throws(SQLiteError) -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: try SQLiteError.fail(code, db, sql: sql)
        }
    }

    /// Runs the statement to completion, discarding rows, then resets it (bindings kept).
    package func execute() throws(SQLiteError) {
        // Resetting at the end releases the statement's locks even when a step fails.
        defer { reset() }
        while try step() {}
    }

    /// Runs the statement from its start and calls `body` for every row; read the row's
    /// columns from the statement passed in. Resets the statement afterwards.
    package func forEachRow(_ body: (Statement) throws -> Void) throws {
        reset()
        defer { reset() }
        while try step() {
            try body(self)
        }
    }

    /// Runs the statement from its start and returns every row's values.
    package func rows() throws(SQLiteError) -> [[DatabaseValue]] {
        reset()
        defer { reset() }
        var rows: [[DatabaseValue]] = []
        let count = columnCount
        while try step() {
            rows.append((0..<count).map { value(at: $0) })
        }
        return rows
    }

    // MARK: - Columns of the current row

    /// The number of result columns.
    package var columnCount: Int32 { sqlite3_column_count(handle) }

    /// The name of the result column at the 0-based `index`.
    package func columnName(_ index: Int32) -> String {
        checkColumn(index)
        return sqlite3_column_name(handle, index).map { String(cString: $0) } ?? ""
    }

    /// The names of all result columns.
    package var columnNames: [String] { (0..<columnCount).map(columnName) }

    /// The value at `index`, in its storage class.
    package func value(at index: Int32) -> DatabaseValue {
        checkColumn(index)
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, index))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, index))
        case SQLITE_TEXT: return .text(text(at: index))
        case SQLITE_BLOB: return .blob(bytes(at: index))
        default: return .null
        }
    }

    /// For TEXT that is not UTF-8 (SQLite stores whatever bytes it is given), the
    /// 0-based offset of the first bad byte; nil for UTF-8 text and other values.
    /// ``value(at:)`` reads such text with U+FFFD in place of the bad bytes.
    package func invalidUTF8Offset(at index: Int32) -> Int? {
        checkColumn(index)
        guard sqlite3_column_type(handle, index) == SQLITE_TEXT, let text = sqlite3_column_text(handle, index) else {
            return nil
        }
        let count = Int(sqlite3_column_bytes(handle, index))
        return UTF8Validation.firstInvalidByte(in: UnsafeBufferPointer(start: text, count: count))
    }

    /// Whether the value at `index` is `NULL`.
    package func isNull(at index: Int32) -> Bool {
        checkColumn(index)
        return sqlite3_column_type(handle, index) == SQLITE_NULL
    }

    /// The value at `index` converted by SQLite's rules (`NULL` is 0). Check ``isNull(at:)``
    /// or use ``value(at:)`` where `NULL` matters.
    package func int64(at index: Int32) -> Int64 {
        checkColumn(index)
        return sqlite3_column_int64(handle, index)
    }

    /// The value at `index` converted by SQLite's rules (`NULL` is 0.0).
    package func double(at index: Int32) -> Double {
        checkColumn(index)
        return sqlite3_column_double(handle, index)
    }

    /// The value at `index` converted to text by SQLite's rules (`NULL` is "").
    package func string(at index: Int32) -> String {
        checkColumn(index)
        return text(at: index)
    }

    /// The value at `index` as bytes (`NULL` and empty blobs are `[]`).
    package func blob(at index: Int32) -> [UInt8] {
        checkColumn(index)
        return bytes(at: index)
    }

    private func text(at index: Int32) -> String {
        // sqlite3_column_bytes must follow sqlite3_column_text: the conversion to text
        // is what fixes the byte count.
        guard let text = sqlite3_column_text(handle, index) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    private func bytes(at index: Int32) -> [UInt8] {
        // A zero-length blob comes back as a NULL pointer.
        guard let blob = sqlite3_column_blob(handle, index) else { return [] }
        let count = Int(sqlite3_column_bytes(handle, index))
        return Array(UnsafeRawBufferPointer(start: blob, count: count))
    }

    private func checkColumn(_ index: Int32) {
        precondition(
            index >= 0 && index < columnCount,
            "column index \(index) out of range 0..<\(columnCount) in `\(sql)`")
    }
}

// A statement belongs to its connection's thread; no one may declare it Sendable.
@available(*, unavailable)
extension Statement: Sendable {}

/// `SQLITE_TRANSIENT` (`(sqlite3_destructor_type)-1`): SQLite copies the bytes before
/// the bind call returns. The C macro is a cast that Swift does not import.
private var sqliteTransient: sqlite3_destructor_type {
    unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
