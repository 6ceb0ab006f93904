import DataModel
import Foundation
import ModelMigration
import SQLiteStore

/// Runs SQL on any SQLite file (to age a store as tests need: drop a table, hold data).
package enum SQLiteFile {
    /// Executes `sql` (statements separated by semicolons) on the file at `path`.
    package static func execute(_ path: String, _ sql: String) throws {
        let connection = try Connection(path: path)
        try connection.execute(sql)
        try connection.close()
    }

    /// The files of the store at `path` as a WAL writer leaves them while it runs:
    /// `sql` committed into the `-wal` only (no checkpoint), the main file without
    /// it. Copied while the writer is open (closing it would checkpoint); the store
    /// at `path` ends checkpointed.
    package static func walImage(_ path: String, _ sql: String) throws -> (main: [UInt8], wal: [UInt8]) {
        let connection = try Connection(path: path)
        _ = try connection.scalarString("PRAGMA journal_mode = WAL")
        try connection.execute("PRAGMA wal_autocheckpoint = 0")
        try connection.execute(sql)
        let main = FileManager.default.contents(atPath: path).map { [UInt8]($0) } ?? []
        let wal = FileManager.default.contents(atPath: path + "-wal").map { [UInt8]($0) } ?? []
        try connection.close()
        return (main, wal)
    }
}
