/// A column of a table as SQLite reports it (`PRAGMA table_xinfo`).
package struct ColumnInfo: Sendable, Hashable {
    /// Whether and how a column is hidden from `SELECT *`.
    package enum Hidden: Int, Sendable, Hashable {
        /// An ordinary column.
        case visible = 0
        /// A hidden column of a virtual table.
        case virtualTable = 1
        /// A generated `VIRTUAL` column.
        case generatedVirtual = 2
        /// A generated `STORED` column.
        case generatedStored = 3
    }

    /// The column name.
    package var name: String
    /// The declared type as written, e.g. `INTEGER`, `VARCHAR(20)`; empty when none.
    package var declaredType: String
    /// Whether the column is `NOT NULL`.
    package var notNull: Bool
    /// The default value as SQL text, e.g. `0`, `'none'`, `CURRENT_TIMESTAMP`.
    package var defaultSQL: String?
    /// The 1-based position in the primary key, or 0 when not part of it.
    package var primaryKeyIndex: Int
    /// Whether the column is hidden or generated.
    package var hidden: Hidden

    /// Creates a column description.
    package init(
        name: String, declaredType: String, notNull: Bool, defaultSQL: String?,
        primaryKeyIndex: Int, hidden: Hidden = .visible
    ) {
        self.name = name
        self.declaredType = declaredType
        self.notNull = notNull
        self.defaultSQL = defaultSQL
        self.primaryKeyIndex = primaryKeyIndex
        self.hidden = hidden
    }

    /// Whether the column is part of the primary key.
    package var isPrimaryKey: Bool { primaryKeyIndex > 0 }
    /// Whether the column is anything but an ordinary column.
    package var isHidden: Bool { hidden != .visible }
}
