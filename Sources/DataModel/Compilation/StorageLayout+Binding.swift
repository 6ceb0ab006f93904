/// The tables, columns and indexes a store actually has: what a computed layout is
/// bound to (`StorageLayout.bound(to:)`). Read from SQLite by `SQLiteStore`; plain
/// values here so that binding needs no database.
package struct ExistingSchema: Sendable, Hashable {
    /// Each table's columns, in table order.
    package var tables: [String: [String]]
    /// Indexes made by `CREATE INDEX` on plain columns (constraint indexes and
    /// indexes on expressions are not part of a layout).
    package var indexes: [StorageLayout.Index]

    /// Creates a schema description.
    package init(tables: [String: [String]], indexes: [StorageLayout.Index]) {
        self.tables = tables
        self.indexes = indexes
    }
}

extension StorageLayout {
    /// What binding a computed layout to a store found.
    package struct Binding: Sendable {
        /// The layout with the store's own names wherever they differ from the
        /// computed ones, and the store's indexes.
        package var layout: StorageLayout
        /// What could not be bound, one line each (`ZPERSON has no column ZAGE`).
        package var problems: [String]
        /// Computed names the store has under another name (`Z_16USERS.Z_24USERS` →
        /// `Z_24USERS1`), for people reading a plan.
        package var renamed: [String]

        /// `the store's tables differ from the layout of …: …`, naming the first
        /// problems; nil when everything was bound.
        package func mismatch(with version: CompiledVersion) -> String? {
            guard !problems.isEmpty else { return nil }
            return "the store's tables differ from the layout of \(version.model) version \(version.version): "
                + problems.prefix(8).joined(separator: "; ") + (problems.count > 8 ? "; …" : "")
        }
    }

    /// This layout as the store holds it: the computed names are the first guess and
    /// the schema decides. Core Data keeps a column's name for the life of a store
    /// (its migrations copy old names forward: Wire's stores hold
    /// `Z_16USERS (Z_16SYSTEMMESSAGES, Z_24USERS1)` where a store created at the same
    /// version would say `Z_24USERS`, and indexes named after entity numbers of
    /// years before, `Z_14USERS_Z_22USERS1_INDEX` on `Z_16USERS`). A column missing
    /// under its computed name is bound to the one store column of the same stem
    /// (the name without its numeric suffix) that no other column of the layout
    /// claims; none or several is a problem, named.
    ///
    /// Indexes: the layout's indexes are those the store has, under the store's
    /// names: one of the computed definition is found by name, else by definition
    /// (table, columns, order, uniqueness, condition); computed indexes the store
    /// lacks are left out (a migration creates them), and the store's other
    /// indexes on the layout's tables are kept in (a migration to a version without
    /// them drops them), so that nothing is created twice.
    package func bound(to schema: ExistingSchema) -> Binding {
        var layout = self
        var problems: [String] = []
        var renamed: [String] = []
        var columnRenames: [String: [String: String]] = [:]  // table → computed → stored
        for position in layout.tables.indices {
            let table = layout.tables[position]
            guard let stored = schema.tables[table.name] else {
                problems.append("table \(table.name) is missing")
                continue
            }
            let present = Set(stored)
            var claimed = Set(table.columns.map(\.name).filter(present.contains))
            var renames: [String: String] = [:]
            for column in table.columns where !present.contains(column.name) {
                let stem = Self.stem(column.name)
                let candidates = stored.filter { !claimed.contains($0) && Self.stem($0) == stem }
                switch candidates.count {
                case 1:
                    renames[column.name] = candidates[0]
                    claimed.insert(candidates[0])
                    renamed.append("\(table.name).\(column.name) is \(candidates[0])")
                case 0:
                    problems.append("\(table.name) has no column \(column.name)")
                default:
                    problems.append(
                        """
                        \(table.name) has no column \(column.name), and \(candidates.joined(separator: ", ")) could \
                        each be it
                        """
                    )
                }
            }
            guard !renames.isEmpty else { continue }
            columnRenames[table.name] = renames
            layout.tables[position].renameColumns(renames)
        }

        let computed = layout.indexes.map { $0.renamingColumns(columnRenames[$0.table] ?? [:]) }
        let tableNames = Set(layout.tables.map(\.name))
        let storedIndexes = schema.indexes.filter { tableNames.contains($0.table) }
        var used: Set<String> = []
        var indexes: [Index] = []
        for index in computed {
            if let same = storedIndexes.first(where: { $0.name == index.name }) {
                used.insert(same.name)
                indexes.append(same)
            } else if let equivalent = storedIndexes.first(where: { stored in
                !used.contains(stored.name) && stored.hasDefinition(of: index)
                    && !computed.contains { $0.name == stored.name }
            }) {
                used.insert(equivalent.name)
                indexes.append(equivalent)
            }
        }
        indexes += storedIndexes.filter { !used.contains($0.name) }
        layout.indexes = indexes
        return Binding(layout: layout, problems: problems, renamed: renamed)
    }

    /// This layout (a migration's destination) keeping the names a store already
    /// gives its indexes in `source` (its bound layout): an index with the same
    /// definition (table, columns, uniqueness, condition) keeps the store's name, as
    /// Core Data's migrations keep old index names (`Z_14USERS_Z_22USERS1_INDEX` on
    /// `Z_15USERS`), so it is neither dropped nor built again for a name alone. Tables
    /// and columns keep their computed names: a migrated store has the tables and
    /// columns of a store created at its version.
    package func keepingIndexNames(of source: StorageLayout) -> StorageLayout {
        var layout = self
        var names = Set<String>()
        let computedNames = Set(layout.indexes.map(\.name))
        for position in layout.indexes.indices {
            let index = layout.indexes[position]
            if source.indexes.contains(where: { $0.name == index.name }) {
                names.insert(index.name)
                continue
            }
            if let stored = source.indexes.first(where: {
                $0.hasDefinition(of: index) && !computedNames.contains($0.name) && !names.contains($0.name)
            }) {
                layout.indexes[position].name = stored.name
                names.insert(stored.name)
            }
        }
        return layout
    }

    /// A name without its numeric suffix (`ZTEXT1` → `ZTEXT`, `Z_24USERS1` →
    /// `Z_24USERS`); the entity number inside a name is not a suffix.
    package static func stem(_ name: String) -> Substring {
        var end = name.endIndex
        while end > name.startIndex, name[name.index(before: end)].isASCII, name[name.index(before: end)].isNumber {
            end = name.index(before: end)
        }
        // `Z_24` alone, or `Z24_…` cut at its number: keep names that are nothing but a prefix and a number.
        if end == name.startIndex || name[name.index(before: end)] == "_" { return Substring(name) }
        return name[..<end]
    }
}

extension StorageLayout.Table {
    /// Renames columns (old name → new name), in the primary key too.
    mutating func renameColumns(_ renames: [String: String]) {
        for position in columns.indices {
            columns[position].name = renames[columns[position].name] ?? columns[position].name
        }
        primaryKey = primaryKey.map { renames[$0] ?? $0 }
    }
}

extension StorageLayout.Index {
    /// The same index over renamed columns (old name → new name).
    package func renamingColumns(_ renames: [String: String]) -> StorageLayout.Index {
        var index = self
        index.columns = columns.map { .init(name: renames[$0.name] ?? $0.name, isDescending: $0.isDescending) }
        return index
    }

    /// Same table, columns, order, uniqueness and condition: the same index under
    /// any name.
    package func hasDefinition(of other: StorageLayout.Index) -> Bool {
        table == other.table && columns == other.columns && isUnique == other.isUnique
            && condition?.filter { !$0.isWhitespace } == other.condition?.filter { !$0.isWhitespace }
    }
}
