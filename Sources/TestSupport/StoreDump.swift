import DataModel
import Foundation
import ModelMigration
import SQLiteStore

/// The schema and every row of every table of an SQLite file, as text: two files
/// with equal dumps hold the same data (a backup, a rolled-back store).
public enum StoreDump {
    /// Dumps the database at `path` (opened read-only).
    public static func dump(_ path: String) throws -> String {
        let connection = try Connection(path: path, mode: .readOnly)
        defer { try? connection.close() }
        var lines: [String] = []
        let schema = try connection.prepare(
            "SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_schema ORDER BY type, name"
        ).rows()
        for row in schema {
            lines.append(row.map { $0.string ?? "\($0)" }.joined(separator: " | "))
        }
        for table in try connection.tables().sorted() {
            let rows = try connection.prepare("SELECT * FROM \(SQLText.q(table)) ORDER BY rowid").rows()
            lines.append("-- \(table): \(rows.count) rows")
            for row in rows { lines.append(row.map { "\($0)" }.joined(separator: " | ")) }
        }
        return lines.joined(separator: "\n")
    }
}
