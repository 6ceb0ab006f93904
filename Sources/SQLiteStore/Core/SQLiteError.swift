internal import CSQLite
import Foundation

/// An error reported by SQLite, with the extended result code, SQLite's message and
/// the SQL or database file involved.
///
/// ```
/// SQLite error 2067 (SQLITE_CONSTRAINT_UNIQUE): UNIQUE constraint failed: ZPERSON.ZEMAIL — in `INSERT INTO ZPERSON …`
/// ```
package struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// The broad class of failure, derived from the primary result code.
    package enum Kind: Sendable, Hashable {
        /// `SQLITE_BUSY`: another connection holds a conflicting lock.
        case busy
        /// `SQLITE_LOCKED`: a conflict inside this process (shared cache, same connection).
        case locked
        /// `SQLITE_CONSTRAINT`: a UNIQUE, NOT NULL, CHECK or other constraint failed.
        case constraint
        /// `SQLITE_CORRUPT`: the database file is malformed.
        case corrupt
        /// `SQLITE_NOTADB`: the file is not an SQLite database.
        case notADatabase
        /// `SQLITE_READONLY`: an attempt to write a read-only database.
        case readOnly
        /// `SQLITE_CANTOPEN`: the file could not be opened.
        case cantOpen
        /// `SQLITE_FULL`: the disk is full.
        case full
        /// `SQLITE_IOERR`: the operating system reported an I/O error.
        case ioError
        /// `SQLITE_INTERRUPT`: the operation was interrupted by `Connection.interrupt()`.
        case interrupted
        /// `SQLITE_MISUSE`: the library was used incorrectly.
        case misuse
        /// Any other result code.
        case other

        init(primaryResultCode code: Int32) {
            switch code {
            case SQLITE_BUSY: self = .busy
            case SQLITE_LOCKED: self = .locked
            case SQLITE_CONSTRAINT: self = .constraint
            case SQLITE_CORRUPT: self = .corrupt
            case SQLITE_NOTADB: self = .notADatabase
            case SQLITE_READONLY: self = .readOnly
            case SQLITE_CANTOPEN: self = .cantOpen
            case SQLITE_FULL: self = .full
            case SQLITE_IOERR: self = .ioError
            case SQLITE_INTERRUPT: self = .interrupted
            case SQLITE_MISUSE: self = .misuse
            default: self = .other
            }
        }
    }

    /// The broad class of failure.
    package var kind: Kind
    /// The extended result code, e.g. 2067 for `SQLITE_CONSTRAINT_UNIQUE`.
    package var resultCode: Int32
    /// SQLite's message (`sqlite3_errmsg`), e.g. `UNIQUE constraint failed: ZPERSON.ZEMAIL`.
    package var message: String
    /// The statement that failed, if any.
    package var sql: String?
    /// The database file, for errors about the file itself (open, close, backup).
    package var path: String?

    /// Creates an error; `kind` is derived from the primary part of `resultCode`.
    package init(resultCode: Int32, message: String, sql: String? = nil, path: String? = nil) {
        self.kind = Kind(primaryResultCode: resultCode & 0xFF)
        self.resultCode = resultCode
        self.message = message
        self.sql = sql
        self.path = path
    }

    /// The primary result code, e.g. 19 (`SQLITE_CONSTRAINT`) for 2067.
    package var primaryResultCode: Int32 { resultCode & 0xFF }

    /// The C name of the result code, e.g. `SQLITE_CONSTRAINT_UNIQUE`.
    package var codeName: String {
        Self.codeNames[resultCode]
            ?? Self.codeNames[primaryResultCode].map { "\($0) (extended \(resultCode >> 8))" }
            ?? "unknown result code"
    }

    /// `path: SQLite error N (NAME): message — in `sql``, leaving out what is unknown.
    package var description: String {
        guard let sql else { return summary }
        return summary + " — in `\(sql)`"
    }

    /// ``description`` without the statement: `path: SQLite error N (NAME): message`.
    /// A statement can run to thousands of characters (a table rebuild's `INSERT …
    /// SELECT`); messages for people carry this, and the statement travels apart.
    package var summary: String {
        (path.map { "\($0): " } ?? "") + "SQLite error \(resultCode) (\(codeName)): \(message)"
    }

    // MARK: - The one path from a result code to an error

    /// Throws unless `code` is `SQLITE_OK`.
    ///
    /// Callers that expect `SQLITE_ROW` or `SQLITE_DONE` handle those themselves and
    /// send every other code to ``fail(_:_:message:sql:path:)``.
    @inline(__always)
    static func check(
        _ code: Int32, _ db: OpaquePointer?, sql: String? = nil, path: String? = nil
    ) throws(SQLiteError) {
        if code != SQLITE_OK { try fail(code, db, sql: sql, path: path) }
    }

    /// Throws the error for `code`.
    ///
    /// The message is SQLite's own for the connection `db` when that connection
    /// reports the same code (it does after a failed call on it); otherwise, or when
    /// `message` is given for errors this layer detects itself, that text is used.
    static func fail(
        _ code: Int32, _ db: OpaquePointer?,
        message: String? = nil, sql: String? = nil, path: String? = nil
    ) throws(SQLiteError) -> Never {
        let text: String
        if let message {
            text = message
        } else if let db, sqlite3_extended_errcode(db) == code, let cMessage = sqlite3_errmsg(db) {
            text = String(cString: cMessage)
        } else {
            text = String(cString: sqlite3_errstr(code))
        }
        throw SQLiteError(resultCode: code, message: text + systemCause(code, db), sql: sql, path: path)
    }

    /// What the operating system said, for failures that come from it: "unable to
    /// open database file" alone does not tell a missing folder from a process out
    /// of file descriptors.
    private static func systemCause(_ code: Int32, _ db: OpaquePointer?) -> String {
        let primary = code & 0xFF
        guard
            primary == SQLITE_CANTOPEN || primary == SQLITE_IOERR || primary == SQLITE_FULL || primary == SQLITE_NOMEM,
            let db
        else { return "" }
        let number = sqlite3_system_errno(db)
        guard number != 0 else { return "" }
        let reason = String(cString: strerror(number))
        switch number {
        case EMFILE, ENFILE: return " (\(reason): raise the limit on open files, `ulimit -n`)"
        case ENOMEM: return " (\(reason): raise the memory limit, `ulimit -v`)"
        default: return " (\(reason))"
        }
    }

    /// Result code names of SQLite 3.40 (sqlite3.h, "Result Codes" and
    /// "Extended Result Codes"); `sqlite3_errstr` only gives English phrases.
    private static let codeNames: [Int32: String] = [
        0: "SQLITE_OK", 1: "SQLITE_ERROR", 2: "SQLITE_INTERNAL", 3: "SQLITE_PERM",
        4: "SQLITE_ABORT", 5: "SQLITE_BUSY", 6: "SQLITE_LOCKED", 7: "SQLITE_NOMEM",
        8: "SQLITE_READONLY", 9: "SQLITE_INTERRUPT", 10: "SQLITE_IOERR", 11: "SQLITE_CORRUPT",
        12: "SQLITE_NOTFOUND", 13: "SQLITE_FULL", 14: "SQLITE_CANTOPEN", 15: "SQLITE_PROTOCOL",
        16: "SQLITE_EMPTY", 17: "SQLITE_SCHEMA", 18: "SQLITE_TOOBIG", 19: "SQLITE_CONSTRAINT",
        20: "SQLITE_MISMATCH", 21: "SQLITE_MISUSE", 22: "SQLITE_NOLFS", 23: "SQLITE_AUTH",
        24: "SQLITE_FORMAT", 25: "SQLITE_RANGE", 26: "SQLITE_NOTADB", 27: "SQLITE_NOTICE",
        28: "SQLITE_WARNING", 257: "SQLITE_ERROR_MISSING_COLLSEQ", 261: "SQLITE_BUSY_RECOVERY",
        262: "SQLITE_LOCKED_SHAREDCACHE", 264: "SQLITE_READONLY_RECOVERY",
        266: "SQLITE_IOERR_READ", 267: "SQLITE_CORRUPT_VTAB", 270: "SQLITE_CANTOPEN_NOTEMPDIR",
        275: "SQLITE_CONSTRAINT_CHECK", 279: "SQLITE_AUTH_USER", 283: "SQLITE_NOTICE_RECOVER_WAL",
        284: "SQLITE_WARNING_AUTOINDEX", 513: "SQLITE_ERROR_RETRY", 516: "SQLITE_ABORT_ROLLBACK",
        517: "SQLITE_BUSY_SNAPSHOT", 518: "SQLITE_LOCKED_VTAB", 520: "SQLITE_READONLY_CANTLOCK",
        522: "SQLITE_IOERR_SHORT_READ", 523: "SQLITE_CORRUPT_SEQUENCE",
        526: "SQLITE_CANTOPEN_ISDIR", 531: "SQLITE_CONSTRAINT_COMMITHOOK",
        539: "SQLITE_NOTICE_RECOVER_ROLLBACK", 769: "SQLITE_ERROR_SNAPSHOT",
        773: "SQLITE_BUSY_TIMEOUT", 776: "SQLITE_READONLY_ROLLBACK", 778: "SQLITE_IOERR_WRITE",
        779: "SQLITE_CORRUPT_INDEX", 782: "SQLITE_CANTOPEN_FULLPATH",
        787: "SQLITE_CONSTRAINT_FOREIGNKEY", 1032: "SQLITE_READONLY_DBMOVED",
        1034: "SQLITE_IOERR_FSYNC", 1038: "SQLITE_CANTOPEN_CONVPATH",
        1043: "SQLITE_CONSTRAINT_FUNCTION", 1288: "SQLITE_READONLY_CANTINIT",
        1290: "SQLITE_IOERR_DIR_FSYNC", 1294: "SQLITE_CANTOPEN_DIRTYWAL",
        1299: "SQLITE_CONSTRAINT_NOTNULL", 1544: "SQLITE_READONLY_DIRECTORY",
        1546: "SQLITE_IOERR_TRUNCATE", 1550: "SQLITE_CANTOPEN_SYMLINK",
        1555: "SQLITE_CONSTRAINT_PRIMARYKEY", 1802: "SQLITE_IOERR_FSTAT",
        1811: "SQLITE_CONSTRAINT_TRIGGER", 2058: "SQLITE_IOERR_UNLOCK",
        2067: "SQLITE_CONSTRAINT_UNIQUE", 2314: "SQLITE_IOERR_RDLOCK",
        2323: "SQLITE_CONSTRAINT_VTAB", 2570: "SQLITE_IOERR_DELETE",
        2579: "SQLITE_CONSTRAINT_ROWID", 2826: "SQLITE_IOERR_BLOCKED",
        2835: "SQLITE_CONSTRAINT_PINNED", 3082: "SQLITE_IOERR_NOMEM",
        3091: "SQLITE_CONSTRAINT_DATATYPE", 3338: "SQLITE_IOERR_ACCESS",
        3594: "SQLITE_IOERR_CHECKRESERVEDLOCK", 3850: "SQLITE_IOERR_LOCK",
        4106: "SQLITE_IOERR_CLOSE", 4362: "SQLITE_IOERR_DIR_CLOSE", 4618: "SQLITE_IOERR_SHMOPEN",
        4874: "SQLITE_IOERR_SHMSIZE", 5130: "SQLITE_IOERR_SHMLOCK", 5386: "SQLITE_IOERR_SHMMAP",
        5642: "SQLITE_IOERR_SEEK", 5898: "SQLITE_IOERR_DELETE_NOENT", 6154: "SQLITE_IOERR_MMAP",
        6410: "SQLITE_IOERR_GETTEMPPATH", 6666: "SQLITE_IOERR_CONVPATH",
        6922: "SQLITE_IOERR_VNODE", 7178: "SQLITE_IOERR_AUTH", 7434: "SQLITE_IOERR_BEGIN_ATOMIC",
        7690: "SQLITE_IOERR_COMMIT_ATOMIC", 7946: "SQLITE_IOERR_ROLLBACK_ATOMIC",
        8202: "SQLITE_IOERR_DATA", 8458: "SQLITE_IOERR_CORRUPTFS",
    ]
}

extension SQLiteError {
    /// What went wrong in words a person acts on, SQLite's code after: the one
    /// wording of a full disk, an I/O failure or an interruption, wherever they
    /// surface (opening a store, a migration step, a commit).
    package var explained: String {
        switch kind {
        case .full: "the disk is full (\(summary))"
        case .ioError:
            """
            the system could not read or write the store: the disk may be full, a file-size limit reached, or the \
            device failing (\(summary))
            """
        case .interrupted: "interrupted (\(summary))"
        default: summary
        }
    }
}
