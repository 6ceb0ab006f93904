package import DataModel
import Foundation
import PropertyList

/// One row of `Z_PRIMARYKEY`: an entity's number, parent and key counter.
package struct EntityKeyRow: Sendable, Hashable, Codable {
    /// `Z_ENT`.
    package var number: Int
    /// `Z_NAME`.
    package var name: String
    /// `Z_SUPER`: the parent's number, 0 for a root.
    package var parent: Int
    /// `Z_MAX`: the highest primary key handed out.
    package var maxKey: Int64
}

extension Store {
    /// Reads and decodes `Z_METADATA.Z_PLIST`.
    public func readMetadata() throws(StoreError) -> StoreMetadata {
        let blob: DatabaseValue?
        let uuid: String?
        do {
            blob = try connection.scalar("SELECT Z_PLIST FROM Z_METADATA ORDER BY Z_VERSION LIMIT 1")
            uuid = try connection.scalarString("SELECT Z_UUID FROM Z_METADATA ORDER BY Z_VERSION LIMIT 1")
        } catch {
            throw StoreError.from(error, path: path)
        }
        guard let bytes = blob?.blob, !bytes.isEmpty else {
            throw StoreError(.invalidMetadata, "Z_METADATA holds no metadata plist", path: path)
        }
        let plist: PropertyListValue
        do {
            plist = try BinaryPropertyList.decode(bytes)
        } catch {
            throw StoreError(.invalidMetadata, "the metadata plist is malformed: \(error.message)", path: path)
        }
        do {
            return try StoreMetadata(plist: plist, storeUUID: uuid)
        } catch {
            throw StoreError(error.kind, error.message, path: path)
        }
    }

    /// Replaces the metadata (inside the caller's transaction, if any).
    package func writeMetadata(_ metadata: StoreMetadata) throws(SQLiteError) {
        var plist = metadata.plist
        // Core Data keeps the UUID in the Z_UUID column only; do the same for its stores.
        if metadata.frameworkVersion != nil, !metadata.isManagedByToolkit, case .dictionary(var d) = plist {
            d[StoreMetadata.Key.storeUUID] = nil
            plist = .dictionary(d)
        }
        let bytes = BinaryPropertyList.encode(plist)
        try connection.execute("DELETE FROM Z_METADATA")
        let statement = try connection.cachedStatement(
            "INSERT INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)")
        try statement.bind([.text(metadata.storeUUID), .blob(bytes)])
        try statement.execute()
    }

    /// The rows of `Z_PRIMARYKEY`, by entity number.
    package func entityKeyRows() throws(StoreError) -> [EntityKeyRow] {
        do {
            let statement = try connection.prepare(
                "SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT")
            var rows: [EntityKeyRow] = []
            while try statement.step() {
                rows.append(
                    EntityKeyRow(
                        number: Int(statement.int64(at: 0)), name: statement.string(at: 1),
                        parent: Int(statement.int64(at: 2)), maxKey: statement.int64(at: 3)))
            }
            return rows
        } catch {
            throw StoreError.from(error, path: path)
        }
    }

    /// Entity name → `Z_ENT`, as this store numbers them. Numbers no store could
    /// use (0, negative, beyond 2^31 − 1) are left out, so that numbering the
    /// remaining entities never overflows; the planner refuses such a store.
    package func entityNumbers() throws(StoreError) -> [String: Int] {
        Dictionary(
            try entityKeyRows().filter { (1...Int(Int32.max)).contains($0.number) }.map { ($0.name, $0.number) },
            uniquingKeysWith: { first, _ in first })
    }

    /// Writes `Z_PRIMARYKEY` rows for every entity of `layout` not yet listed, keeping
    /// existing numbers and counters (entity numbers are stable for the store's life).
    /// A number listed under another name is an entity renamed (`renamedFrom`): its
    /// row takes the new name and keeps its counter.
    package func writeEntityNumbers(layout: StorageLayout, version: CompiledVersion) throws(SQLiteError) {
        let rows = (try? entityKeyRows()) ?? []
        let existing = Set(rows.map(\.name))
        let numbers = Set(rows.map(\.number))
        let insert = try connection.cachedStatement(
            "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, 0)")
        let rename = try connection.cachedStatement("UPDATE Z_PRIMARYKEY SET Z_NAME = ?, Z_SUPER = ? WHERE Z_ENT = ?")
        for (name, number) in layout.entityNumbers.sorted(by: { $0.value < $1.value }) where !existing.contains(name) {
            let parent = version.entity(named: name)?.parent.flatMap { layout.entityNumbers[$0] } ?? 0
            if numbers.contains(number) {
                try rename.bind([.text(name), .integer(Int64(parent)), .integer(Int64(number))])
                try rename.execute()
            } else {
                try insert.bind([.integer(Int64(number)), .text(name), .integer(Int64(parent))])
                try insert.execute()
            }
        }
    }

    /// Stores the compiled model of the store's own version, so the store can be
    /// inspected and migrated even when its YAML is gone or was edited.
    package func writeModelCache(_ version: CompiledVersion) throws(SQLiteError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = (try? encoder.encode(version)) ?? Data()
        try connection.execute("DELETE FROM \(SchemaSQL.modelCacheTable)")
        let statement = try connection.cachedStatement(
            "INSERT INTO \(SchemaSQL.modelCacheTable) (Z_VERSION, Z_CONTENT) VALUES (?, ?)")
        try statement.bind([.integer(Int64(version.version)), .blob([UInt8](data))])
        try statement.execute()
    }

    /// The compiled model cached in the store, when it has one (stores written by
    /// Apple's Core Data do not).
    package func readModelCache() throws(StoreError) -> CompiledVersion? {
        do {
            guard try connection.tableExists(SchemaSQL.modelCacheTable) else { return nil }
            guard let bytes = try connection.scalar("SELECT Z_CONTENT FROM \(SchemaSQL.modelCacheTable) LIMIT 1")?.blob
            else { return nil }
            do {
                return try JSONDecoder().decode(CompiledVersion.self, from: Data(bytes))
            } catch {
                throw StoreError(
                    .invalidMetadata, "the cached model in \(SchemaSQL.modelCacheTable) cannot be read: \(error)",
                    path: path)
            }
        } catch let error as StoreError {
            throw error
        } catch let error as SQLiteError {
            throw StoreError.from(error, path: path)
        } catch {
            throw StoreError(.sqlite, "\(error)", path: path)
        }
    }

    /// The layout `version` has in this store: its entity numbers, the join table
    /// names that follow from them, and the store's own naming where Core Data's
    /// rule is uncertain (see `CompiledVersion.layout(entityNumbers:reserved:existingTables:)`).
    package func layout(for version: CompiledVersion) throws(StoreError) -> StorageLayout {
        try binding(for: version).layout
    }

    /// The layout `version` has in this store, bound to the tables, columns and
    /// indexes the store actually has (`StorageLayout.bound(to:)`), with what could
    /// not be bound.
    package func binding(for version: CompiledVersion) throws(StoreError) -> StorageLayout.Binding {
        if let refusal = version.storageRefusal { throw StoreError(.unsupportedModel, refusal, path: path) }
        let fromCoreData = (try? readMetadata())?.followsCoreDataNumbering ?? false
        let existing = try existingSchema()
        let computed = version.layout(
            entityNumbers: try entityNumbers(), existingTables: existing.tables.mapValues(Set.init), asStored: true,
            coreDataTypes: fromCoreData)
        var binding = computed.bound(to: existing)
        if fromCoreData { try unswapSiblingColumns(&binding, version: version) }
        return binding
    }

    /// Sibling entities of one table whose columns differ only by suffix (`ZTEXT`,
    /// `ZTEXT1`) are bound by name, but Core Data keeps a column's name for the life
    /// of a store, so in a store it migrated the suffixes may be the other way round
    /// from a store created at the same version. The rows decide: when each
    /// entity's rows hold values only in the other's column, the two are swapped.
    func unswapSiblingColumns(_ binding: inout StorageLayout.Binding, version: CompiledVersion) throws(StoreError) {
        do {
            for position in binding.layout.tables.indices where binding.layout.tables[position].joinRelationship == nil
            {
                let table = binding.layout.tables[position]
                let attributes = table.columns.indices.compactMap { i -> (index: Int, entity: String)? in
                    guard case .attribute(let entity, _) = table.columns[i].role,
                        version.entity(named: entity)?.parent != nil
                    else { return nil }
                    return (i, entity)
                }
                let groups = Dictionary(grouping: attributes) { StorageLayout.stem(table.columns[$0.index].name) }
                for group in groups.values where group.count > 1 {
                    for (n, x) in group.enumerated() {
                        for y in group.dropFirst(n + 1) {
                            let xs = version.subtree(of: x.entity), ys = version.subtree(of: y.entity)
                            guard !xs.contains(y.entity), !ys.contains(x.entity),
                                table.columns[x.index].type == table.columns[y.index].type
                            else { continue }
                            let xNumbers = xs.compactMap { binding.layout.entityNumbers[$0] },
                                yNumbers = ys.compactMap { binding.layout.entityNumbers[$0] }
                            let (xColumn, yColumn) = (
                                binding.layout.tables[position].columns[x.index].name,
                                binding.layout.tables[position].columns[y.index].name
                            )
                            func holds(_ column: String, _ numbers: [Int]) throws(SQLiteError) -> Bool {
                                let list = numbers.map(String.init).joined(separator: ", ")
                                return try connection.scalarInt64(
                                    "SELECT EXISTS (SELECT 1 FROM \(SQLText.q(table.name)) WHERE Z_ENT IN (\(list)) "
                                        + "AND \(SQLText.q(column)) IS NOT NULL)") == 1
                            }
                            let (xOwn, yOwn) = (try holds(xColumn, xNumbers), try holds(yColumn, yNumbers))
                            guard !xOwn, !yOwn else { continue }
                            let (xCrossed, yCrossed) = (try holds(yColumn, xNumbers), try holds(xColumn, yNumbers))
                            guard xCrossed || yCrossed else { continue }
                            binding.layout.tables[position].columns[x.index].name = yColumn
                            binding.layout.tables[position].columns[y.index].name = xColumn
                            binding.renamed.append(
                                """
                                \(table.name): \(x.entity)'s rows hold their values in \(yColumn), \(y.entity)'s in \
                                \(xColumn)
                                """
                            )
                        }
                    }
                }
            }
        } catch {
            throw StoreError.from(error, path: path)
        }
    }

    /// The store's tables (columns in order) and the indexes `CREATE INDEX` made on
    /// plain columns with the default collation, as layouts describe indexes.
    package func existingSchema() throws(StoreError) -> ExistingSchema {
        do {
            var tables: [String: [String]] = [:]
            var indexes: [StorageLayout.Index] = []
            for table in try connection.tables() {
                tables[table] = try connection.columns(of: table).map(\.name)
                for index in try connection.indexes(of: table) where index.origin == .createIndex {
                    // An index a layout cannot describe (an expression, another
                    // collation, a condition that cannot be read) is kept under its
                    // name with a definition no layout index has: never taken for
                    // one, dropped and built again when a version names an index so.
                    let plain = index.columns.allSatisfy { $0.name != nil && $0.collation.uppercased() == "BINARY" }
                    let condition = index.isPartial ? index.sql.flatMap(Self.indexCondition) ?? Self.unreadable : nil
                    let columns = index.columns.map {
                        StorageLayout.IndexColumn(name: $0.name ?? "(expression)", isDescending: $0.isDescending)
                    }
                    indexes.append(
                        StorageLayout.Index(
                            name: index.name, table: table, columns: columns, isUnique: index.isUnique,
                            condition: plain ? condition : Self.unreadable))
                }
            }
            return ExistingSchema(tables: tables, indexes: indexes)
        } catch {
            throw StoreError.from(error, path: path)
        }
    }

    /// The condition of an index this toolkit cannot compare with a layout's.
    static let unreadable = "(not comparable: an expression, a collation or a condition a layout does not describe)"

    /// The `WHERE` clause of a partial index's `CREATE INDEX` statement: the text
    /// after the last `WHERE` keyword outside quotes and brackets; nil when there
    /// is none.
    static func indexCondition(_ sql: String) -> String? {
        let scalars = Array(sql.unicodeScalars)
        var quote: Unicode.Scalar?
        var start: Int?
        var i = 0
        func isWordScalar(_ s: Unicode.Scalar) -> Bool {
            s.properties.isAlphabetic || ("0"..."9").contains(s) || s == "_"
        }
        while i < scalars.count {
            let c = scalars[i]
            if let open = quote {
                if c == open || (open == "[" && c == "]") { quote = nil }
            } else if c == "'" || c == "\"" || c == "`" || c == "[" {
                quote = c
            } else if i + 5 <= scalars.count,
                String(String.UnicodeScalarView(scalars[i..<i + 5])).uppercased() == "WHERE",
                i == 0 || !isWordScalar(scalars[i - 1]), i + 5 == scalars.count || !isWordScalar(scalars[i + 5])
            {
                start = i + 5
            }
            i += 1
        }
        guard let start else { return nil }
        let condition = String(String.UnicodeScalarView(scalars[start...])).trimmingCharacters(
            in: .whitespacesAndNewlines)
        return condition.isEmpty ? nil : condition
    }

    /// Every table of the store with its column names.
    package func schema() throws(StoreError) -> [String: Set<String>] {
        do {
            var result: [String: Set<String>] = [:]
            for table in try connection.tables() {
                result[table] = Set(try connection.columns(of: table).map(\.name))
            }
            return result
        } catch {
            throw StoreError.from(error, path: path)
        }
    }
}
