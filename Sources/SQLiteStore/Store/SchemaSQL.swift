package import DataModel

/// SQL text for a storage layout: `CREATE TABLE` and `CREATE INDEX` statements with
/// every identifier quoted. Pure functions, so that plans can show the SQL they run.
package enum SchemaSQL {
    /// The change counter `column` plus one, always an integer: a counter at
    /// `Int64.max` wraps to 1 (SQLite's `+` would make it the REAL 9.22e18, which
    /// Core Data does not read back as the same counter), and nil or a value that is
    /// no integer counts from 0.
    package static func incremented(_ column: String) -> String {
        "(coalesce(\(SQLText.q(column)), 0) % 9223372036854775807) + 1"
    }

    /// `CREATE TABLE` for one table of a layout.
    package static func createTable(_ table: StorageLayout.Table) -> String {
        var parts = table.columns.map { column -> String in
            var text = "\(SQLText.q(column.name)) \(column.type)"
            if table.primaryKey == [column.name] { text += " PRIMARY KEY" }
            return text
        }
        if table.primaryKey.count > 1 {
            parts.append("PRIMARY KEY (\(table.primaryKey.map(SQLText.q).joined(separator: ", ")))")
        }
        return "CREATE TABLE \(SQLText.q(table.name)) ( \(parts.joined(separator: ", ")) )"
    }

    /// `CREATE [UNIQUE] INDEX` for one index, with `COLLATE BINARY` as Core Data writes it.
    package static func createIndex(_ index: StorageLayout.Index) -> String {
        let columns = index.columns.map { "\(SQLText.q($0.name)) COLLATE BINARY \($0.isDescending ? "DESC" : "ASC")" }
        var sql =
            """
            CREATE \(index.isUnique ? "UNIQUE " : "")INDEX \(SQLText.q(index.name)) ON \(SQLText.q(index.table)) \
            (\(columns.joined(separator: ", ")))
            """
        if let condition = index.condition { sql += " WHERE \(condition)" }
        return sql
    }

    /// Core Data's bookkeeping tables and ours.
    package static let bookkeeping = [
        "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)",
        "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)",
        "CREATE TABLE \(modelCacheTable) (Z_VERSION INTEGER PRIMARY KEY, Z_CONTENT BLOB)",
    ]

    /// The table in which a store keeps the compiled model of its own version
    /// (Core Data's `Z_MODELCACHE` holds an archive only Core Data reads).
    package static let modelCacheTable = "MM_MODELCACHE"

    /// Every statement that creates an empty store of `layout` (bookkeeping excluded).
    package static func create(_ layout: StorageLayout) -> [String] {
        layout.tables.map(createTable) + layout.indexes.map(createIndex)
    }
}
