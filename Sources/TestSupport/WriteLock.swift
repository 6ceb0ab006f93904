import DataModel
import Foundation
import ModelMigration
import SQLiteStore

/// Holds SQLite's write lock on a database (`BEGIN IMMEDIATE`) until released, as
/// another process's writer would; it can write inside its transaction too.
package final class WriteLock {
    private let connection: Connection

    /// Takes the lock (fails if another connection holds it). A small `cacheSize`
    /// (pages) makes SQLite spill changed pages into the file before commit.
    package init(path: String, cacheSize: Int? = nil) throws {
        connection = try Connection(path: path, busyTimeout: 0)
        if let cacheSize { try connection.execute("PRAGMA cache_size = \(cacheSize)") }
        try connection.execute("BEGIN IMMEDIATE")
    }

    /// Runs SQL inside the held transaction.
    package func execute(_ sql: String) throws {
        try connection.execute(sql)
    }

    /// Rolls back and closes.
    package func release() throws {
        try connection.execute("ROLLBACK")
        try connection.close()
    }
}
