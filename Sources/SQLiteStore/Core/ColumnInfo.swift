/// A column of a table as SQLite reports it (`PRAGMA table_xinfo`).
public struct ColumnInfo: Sendable, Hashable {
    /// Whether and how a column is hidden from `SELECT *`.
    public enum Hidden: Int, Sendable, Hashable {
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
    public var name: String
    /// The declared type as written, e.g. `INTEGER`, `VARCHAR(20)`; empty when none.
    public var declaredType: String
    /// Whether the column is `NOT NULL`.
    public var notNull: Bool
    /// The default value as SQL text, e.g. `0`, `'none'`, `CURRENT_TIMESTAMP`.
    public var defaultSQL: String?
    /// The 1-based position in the primary key, or 0 when not part of it.
    public var primaryKeyIndex: Int
    /// Whether the column is hidden or generated.
    public var hidden: Hidden

    /// Creates a column description.
    public init(
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
    public var isPrimaryKey: Bool { primaryKeyIndex > 0 }
    /// Whether the column is anything but an ordinary column.
    public var isHidden: Bool { hidden != .visible }
}
