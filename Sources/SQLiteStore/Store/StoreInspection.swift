package import DataModel

/// What a store holds, read without writing: metadata, entity numbers, row counts,
/// tables, columns and indexes. Works for this toolkit's stores and Apple's.
package struct StoreInspection: Sendable {
    /// One table as it is in the file.
    package struct Table: Sendable, Hashable, Codable {
        /// The table name.
        package var name: String
        /// Columns as (name, declared type).
        package var columns: [Column]
        /// Indexes on the table.
        package var indexes: [Index]
        /// Rows in the table.
        package var rowCount: Int64
    }

    /// One column.
    package struct Column: Sendable, Hashable, Codable {
        /// The column name.
        package var name: String
        /// The declared type.
        package var type: String
    }

    /// One index.
    package struct Index: Sendable, Hashable, Codable {
        /// The index name.
        package var name: String
        /// Indexed columns.
        package var columns: [String]
        /// Unique index.
        package var isUnique: Bool
    }

    /// One entity as `Z_PRIMARYKEY` lists it, with its row count.
    package struct Entity: Sendable, Hashable, Codable {
        /// `Z_NAME`.
        package var name: String
        /// `Z_ENT`.
        package var number: Int
        /// The parent's name, if any.
        package var parent: String?
        /// `Z_MAX`.
        package var maxKey: Int64
        /// Rows whose `Z_ENT` is this entity's number (subentities not included).
        package var rowCount: Int64?
        /// The stored version hash, if the metadata has one.
        package var storedHash: VersionHash?
    }

    /// The file's path.
    package var path: String
    /// The decoded metadata.
    package var metadata: StoreMetadata
    /// Entities by number.
    package var entities: [Entity]
    /// Every user table in the file.
    package var tables: [Table]
    /// `PRAGMA journal_mode`.
    package var journalMode: String
    /// The file's size in bytes.
    package var fileSize: Int64
    /// The model cached in the store, when it has one.
    package var cachedModel: CompiledVersion?

    /// True when written by Apple's Core Data (it stamps its framework version).
    package var isAppleStore: Bool { metadata.frameworkVersion != nil && !metadata.isManagedByToolkit }
}

extension Store {
    /// Reads everything `migrate inspect` shows.
    package func inspect() throws(StoreError) -> StoreInspection {
        let metadata = try readMetadata()
        let keyRows = try entityKeyRows()
        let cached = try? readModelCache()
        do {
            var tables: [StoreInspection.Table] = []
            for name in try connection.tables() {
                let columns = try connection.columns(of: name).map {
                    StoreInspection.Column(name: $0.name, type: $0.declaredType)
                }
                let indexes = try connection.indexes(of: name).filter { $0.origin == .createIndex }.map {
                    StoreInspection.Index(
                        name: $0.name, columns: $0.columnNames.map { $0 ?? "<expression>" }, isUnique: $0.isUnique)
                }
                let rows = try connection.scalarInt64("SELECT count(*) FROM \(SQLText.q(name))") ?? 0
                tables.append(.init(name: name, columns: columns, indexes: indexes, rowCount: rows))
            }
            let byNumber = Dictionary(keyRows.map { ($0.number, $0) }, uniquingKeysWith: { a, _ in a })
            func root(_ row: EntityKeyRow) -> EntityKeyRow {
                var current = row
                var steps = 0
                while current.parent != 0, let parent = byNumber[current.parent], steps < 1000 {
                    current = parent
                    steps += 1
                }
                return current
            }
            let tableNames = Set(tables.map(\.name))
            var entities: [StoreInspection.Entity] = []
            for row in keyRows {
                let table = "Z" + root(row).name.uppercased()
                var count: Int64?
                if tableNames.contains(table) {
                    count = try connection.scalarInt64(
                        "SELECT count(*) FROM \(SQLText.q(table)) WHERE Z_ENT = ?", .integer(Int64(row.number)))
                }
                entities.append(
                    .init(
                        name: row.name, number: row.number, parent: row.parent == 0 ? nil : byNumber[row.parent]?.name,
                        maxKey: row.maxKey, rowCount: count, storedHash: metadata.versionHashes[row.name]))
            }
            // An immutable read-only open reports "delete"; the header says what the file uses.
            let journal = headerSaysWAL ? "wal" : (try connection.scalarString("PRAGMA journal_mode") ?? "?")
            let size =
                (try connection.scalarInt64("PRAGMA page_count") ?? 0)
                * (try connection.scalarInt64("PRAGMA page_size") ?? 0)
            return StoreInspection(
                path: path, metadata: metadata, entities: entities, tables: tables,
                journalMode: journal, fileSize: size, cachedModel: cached ?? nil)
        } catch {
            throw StoreError.from(error, path: path)
        }
    }
}
