extension Connection {
    /// The user tables of the main database, by name; SQLite's own `sqlite_…` tables are
    /// left out.
    package func tables() throws(SQLiteError) -> [String] {
        let statement = try cachedStatement(
            #"""
            SELECT name FROM main.sqlite_schema
            WHERE type = 'table' AND name NOT LIKE 'sqlite\_%' ESCAPE '\'
            ORDER BY name
            """#)
        defer { statement.reset() }
        var names: [String] = []
        while try statement.step() {
            names.append(statement.string(at: 0))
        }
        return names
    }

    /// Whether the main database has a table named `name` (case-insensitive for ASCII,
    /// as SQLite identifiers are).
    package func tableExists(_ name: String) throws(SQLiteError) -> Bool {
        try firstRow(
            "SELECT 1 FROM main.sqlite_schema WHERE type = 'table' AND name = ? COLLATE NOCASE",
            [.text(name)]
        ) { _ in true } ?? false
    }

    /// The columns of `table` in declaration order, hidden and generated ones included;
    /// empty when there is no such table.
    package func columns(of table: String) throws(SQLiteError) -> [ColumnInfo] {
        // The table-valued form of PRAGMA table_xinfo takes the name as a parameter, so
        // it needs no quoting and its statement can be cached.
        let statement = try cachedStatement(
            """
            SELECT name, type, "notnull", dflt_value, pk, hidden
            FROM pragma_table_xinfo(?, 'main') ORDER BY cid
            """)
        try statement.bind([.text(table)])
        defer { statement.reset() }
        var columns: [ColumnInfo] = []
        while try statement.step() {
            columns.append(
                ColumnInfo(
                    name: statement.string(at: 0),
                    declaredType: statement.string(at: 1),
                    notNull: statement.int64(at: 2) != 0,
                    defaultSQL: statement.isNull(at: 3) ? nil : statement.string(at: 3),
                    primaryKeyIndex: Int(statement.int64(at: 4)),
                    hidden: ColumnInfo.Hidden(rawValue: Int(statement.int64(at: 5))) ?? .visible))
        }
        return columns
    }

    /// The indexes of `table`, by name, including those made by `UNIQUE` and
    /// `PRIMARY KEY` constraints; empty when there is no such table.
    package func indexes(of table: String) throws(SQLiteError) -> [IndexInfo] {
        let list = try cachedStatement(
            """
            SELECT list.name, list."unique", list.origin, list.partial, schema.sql
            FROM pragma_index_list(?, 'main') AS list
            LEFT JOIN main.sqlite_schema AS schema
                ON schema.type = 'index' AND schema.name = list.name
            ORDER BY list.name
            """)
        try list.bind([.text(table)])
        defer { list.reset() }
        var indexes: [IndexInfo] = []
        while try list.step() {
            indexes.append(
                IndexInfo(
                    name: list.string(at: 0),
                    isUnique: list.int64(at: 1) != 0,
                    origin: IndexInfo.Origin(rawValue: list.string(at: 2)) ?? .createIndex,
                    isPartial: list.int64(at: 3) != 0,
                    columns: [],
                    sql: list.isNull(at: 4) ? nil : list.string(at: 4)))
        }
        // Key columns only: index_xinfo also lists the rowid and other auxiliary columns
        // every index entry carries (key = 0).
        let keys = try cachedStatement(
            """
            SELECT name, "desc", coll FROM pragma_index_xinfo(?, 'main')
            WHERE key = 1 ORDER BY seqno
            """)
        for position in indexes.indices {
            try keys.bind([.text(indexes[position].name)])
            defer { keys.reset() }
            while try keys.step() {
                indexes[position].columns.append(
                    IndexInfo.Column(
                        name: keys.isNull(at: 0) ? nil : keys.string(at: 0),
                        isDescending: keys.int64(at: 1) != 0,
                        collation: keys.string(at: 2)))
            }
        }
        return indexes
    }
}
