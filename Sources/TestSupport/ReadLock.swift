import DataModel
import Foundation
import ModelMigration
import SQLiteStore

/// A read transaction held on a store (another reader), until released.
package final class ReadLock: Sendable {
    /// The reader's connection, until released (from any thread: a test's timer).
    private let connection: Locked<Connection?>

    /// Opens a read transaction that has read `table`.
    package init(path: String, table: String) throws {
        let connection = try Connection(path: path, mode: .readOnly, busyTimeout: 0)
        try connection.execute("BEGIN")
        _ = try connection.scalarInt64("SELECT count(*) FROM \(SQLText.q(table))")
        self.connection = Locked(connection)
    }

    /// Ends the transaction and closes (once; later calls do nothing).
    package func release() {
        connection.withLock { held in
            guard let connection = held else { return }
            held = nil
            try? connection.execute("COMMIT")
            try? connection.close()
        }
    }
}
