internal import CSQLite

/// The arguments of one call of a Swift function registered with
/// ``Connection/createFunction(_:arity:deterministic:_:)``: read them during the
/// call only (text and blobs are SQLite's own buffers, not copies).
package struct SQLFunctionArguments {
    private let values: UnsafeMutablePointer<OpaquePointer?>
    /// How many arguments the call has.
    package let count: Int

    init(_ values: UnsafeMutablePointer<OpaquePointer?>, count: Int) {
        self.values = values
        self.count = count
    }

    /// Argument `index` as SQLite holds it.
    package func storageClass(_ index: Int) -> DatabaseValue.StorageClass {
        switch sqlite3_value_type(values[index]) {
        case SQLITE_INTEGER: .integer
        case SQLITE_FLOAT: .real
        case SQLITE_TEXT: .text
        case SQLITE_BLOB: .blob
        default: .null
        }
    }

    /// Whether argument `index` is NULL.
    package func isNull(_ index: Int) -> Bool { sqlite3_value_type(values[index]) == SQLITE_NULL }

    /// Argument `index` as an integer (SQLite's conversion for other classes).
    package func integer(_ index: Int) -> Int64 { sqlite3_value_int64(values[index]) }

    /// Argument `index` as a double (SQLite's conversion for other classes).
    package func double(_ index: Int) -> Double { sqlite3_value_double(values[index]) }

    /// The UTF-8 bytes of argument `index` as text, nil for NULL; valid inside `body` only.
    package func withText<R>(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>?) throws -> R) rethrows -> R {
        let value = values[index]
        guard sqlite3_value_type(value) != SQLITE_NULL, let bytes = sqlite3_value_text(value) else {
            return try body(nil)
        }
        // By length, not up to the first NUL: a text may hold NULs.
        return try body(UnsafeBufferPointer(start: bytes, count: Int(sqlite3_value_bytes(value))))
    }

    /// Argument `index` as a value of its own storage class.
    package func value(_ index: Int) -> DatabaseValue {
        let value = values[index]
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: return .integer(sqlite3_value_int64(value))
        case SQLITE_FLOAT: return .real(sqlite3_value_double(value))
        case SQLITE_TEXT: return .text(withText(index) { $0.map { String(decoding: $0, as: UTF8.self) } ?? "" })
        case SQLITE_BLOB:
            let count = Int(sqlite3_value_bytes(value))
            guard count > 0, let bytes = sqlite3_value_blob(value) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
        default: return .null
        }
    }
}

extension DatabaseValue {
    /// SQLite's five storage classes, without the value.
    package enum StorageClass: Sendable, Hashable { case null, integer, real, text, blob }
}

/// A Swift function behind an SQL function name, kept alive by SQLite
/// (`sqlite3_create_function_v2`'s user data, released by its destructor).
private final class SwiftFunctionBox {
    let body: (SQLFunctionArguments) throws -> DatabaseValue
    init(_ body: @escaping (SQLFunctionArguments) throws -> DatabaseValue) { self.body = body }
}

extension Connection {
    /// Registers `body` as the SQL function `name` taking `arity` arguments on this
    /// connection, until ``removeFunction(_:arity:)`` or the connection closes. An
    /// error `body` throws fails the statement with the error's description as
    /// SQLite's message. `deterministic` lets SQLite evaluate a call with constant
    /// arguments once (`SQLITE_DETERMINISTIC`); the function is never innocuous
    /// (it runs user code), so schema and views cannot use it.
    package func createFunction(
        _ name: String, arity: Int, deterministic: Bool,
        _ body: @escaping (SQLFunctionArguments) throws -> DatabaseValue
    ) throws(SQLiteError) {
        let box = Unmanaged.passRetained(SwiftFunctionBox(body)).toOpaque()
        let flags = SQLITE_UTF8 | (deterministic ? SQLITE_DETERMINISTIC : 0)
        let code = sqlite3_create_function_v2(
            db, name, Int32(arity), flags, box,
            { context, count, values in
                guard let context else { return }
                let box = Unmanaged<SwiftFunctionBox>.fromOpaque(sqlite3_user_data(context)).takeUnretainedValue()
                do {
                    let arguments =
                        values.map { SQLFunctionArguments($0, count: Int(count)) }
                        ?? SQLFunctionArguments(UnsafeMutablePointer(bitPattern: 8)!, count: 0)
                    setResult(context, try box.body(arguments))
                } catch {
                    sqlite3_result_error(context, "\(error)", -1)
                }
            }, nil, nil,
            { pointer in
                if let pointer { Unmanaged<SwiftFunctionBox>.fromOpaque(pointer).release() }
            })
        // On failure SQLite has already called the destructor on `box`.
        if code != SQLITE_OK { try SQLiteError.fail(code, db, message: "cannot register SQL function \(name)") }
    }

    /// Removes the SQL function `name` of `arity` arguments registered by
    /// ``createFunction(_:arity:deterministic:_:)`` (its Swift function is released).
    package func removeFunction(_ name: String, arity: Int) {
        sqlite3_create_function_v2(db, name, Int32(arity), SQLITE_UTF8, nil, nil, nil, nil, nil)
    }
}

/// Sets a function's result; text and blobs are copied by SQLite
/// (`SQLITE_TRANSIENT`): the Swift value is gone once the function returns.
private func setResult(_ context: OpaquePointer, _ value: DatabaseValue) {
    switch value {
    case .null: sqlite3_result_null(context)
    case .integer(let v): sqlite3_result_int64(context, v)
    case .real(let v): sqlite3_result_double(context, v)
    case .text(var text):
        // An empty text has no buffer; a NULL pointer would make the result NULL.
        if text.isEmpty {
            sqlite3_result_text(context, "", 0, nil)
            return
        }
        text.withUTF8 { buffer in
            sqlite3_result_text64(
                context, UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self),
                sqlite3_uint64(buffer.count),
                unsafeBitCast(-1, to: sqlite3_destructor_type.self), UInt8(SQLITE_UTF8))
        }
    case .blob(let bytes):
        bytes.withUnsafeBytes { buffer in
            sqlite3_result_blob64(
                context, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), sqlite3_uint64(buffer.count),
                unsafeBitCast(-1, to: sqlite3_destructor_type.self))
        }
    }
}
