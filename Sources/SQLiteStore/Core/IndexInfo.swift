/// An index of a table as SQLite reports it (`PRAGMA index_list`, `PRAGMA index_xinfo`).
package struct IndexInfo: Sendable, Hashable {
    /// What created the index.
    package enum Origin: String, Sendable, Hashable {
        /// `CREATE INDEX`.
        case createIndex = "c"
        /// A `UNIQUE` constraint in the table definition.
        case uniqueConstraint = "u"
        /// A `PRIMARY KEY` constraint (other than an `INTEGER PRIMARY KEY` rowid alias).
        case primaryKey = "pk"
    }

    /// One key column of an index.
    package struct Column: Sendable, Hashable {
        /// The table column, or `nil` for an expression (`CREATE INDEX … ON t(lower(x))`).
        package var name: String?
        /// Whether the column is sorted descending.
        package var isDescending: Bool
        /// The collating sequence, e.g. `BINARY`, `NOCASE`.
        package var collation: String

        /// Creates an index column description.
        package init(name: String?, isDescending: Bool = false, collation: String = "BINARY") {
            self.name = name
            self.isDescending = isDescending
            self.collation = collation
        }
    }

    /// The index name; `sqlite_autoindex_…` for constraint indexes.
    package var name: String
    /// Whether the index is `UNIQUE`.
    package var isUnique: Bool
    /// What created the index.
    package var origin: Origin
    /// Whether the index has a `WHERE` clause.
    package var isPartial: Bool
    /// The key columns, in index order.
    package var columns: [Column]
    /// The `CREATE INDEX` statement; `nil` for indexes made by constraints.
    package var sql: String?

    /// Creates an index description.
    package init(
        name: String, isUnique: Bool, origin: Origin, isPartial: Bool, columns: [Column],
        sql: String?
    ) {
        self.name = name
        self.isUnique = isUnique
        self.origin = origin
        self.isPartial = isPartial
        self.columns = columns
        self.sql = sql
    }

    /// The key column names; `nil` entries are expressions.
    package var columnNames: [String?] { columns.map(\.name) }
}
