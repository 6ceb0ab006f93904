import DataModel

/// What a store holds, read without writing: metadata, entity numbers, row counts,
/// tables, columns and indexes. Works for this toolkit's stores and Apple's.
public struct StoreInspection: Sendable {
    /// One table as it is in the file.
    public struct Table: Sendable, Hashable, Codable {
        /// The table name.
        public var name: String
        /// Columns as (name, declared type).
        public var columns: [Column]
        /// Indexes on the table.
        public var indexes: [Index]
        /// Rows in the table.
        public var rowCount: Int64
    }

    /// One column.
    public struct Column: Sendable, Hashable, Codable {
        /// The column name.
        public var name: String
        /// The declared type.
        public var type: String
    }

    /// One index.
    public struct Index: Sendable, Hashable, Codable {
        /// The index name.
        public var name: String
        /// Indexed columns.
        public var columns: [String]
        /// Unique index.
        public var isUnique: Bool
    }

    /// One entity as `Z_PRIMARYKEY` lists it, with its row count.
    public struct Entity: Sendable, Hashable, Codable {
        /// `Z_NAME`.
        public var name: String
        /// `Z_ENT`.
        public var number: Int
        /// The parent's name, if any.
        public var parent: String?
        /// `Z_MAX`.
        public var maxKey: Int64
        /// Rows whose `Z_ENT` is this entity's number (subentities not included).
        public var rowCount: Int64?
        /// The stored version hash, if the metadata has one.
        public var storedHash: VersionHash?
    }

    /// The file's path.
    public var path: String
    /// The decoded metadata.
    public var metadata: StoreMetadata
    /// Entities by number.
    public var entities: [Entity]
    /// Every user table in the file.
    public var tables: [Table]
    /// `PRAGMA journal_mode`.
    public var journalMode: String
    /// The file's size in bytes.
    public var fileSize: Int64
    /// The model cached in the store, when it has one.
    public var cachedModel: CompiledVersion?

    /// True when written by Apple's Core Data (it stamps its framework version).
    public var isAppleStore: Bool { metadata.frameworkVersion != nil && !metadata.isManagedByToolkit }
}

extension Store {
    /// Reads everything `migrate inspect` shows.
    public func inspect() throws(StoreError) -> StoreInspection {
        let metadata = try readMetadata()
        let keyRows = try entityKeyRows()
        let cached = try? readModelCache()
        do {
            var tables: [StoreInspection.Table] = []
            for name in try connection.tables() {
                let columns = try connection.columns(of: name).map { StoreInspection.Column(name: $0.name, type: $0.declaredType) }
                let indexes = try connection.indexes(of: name).filter { $0.origin == .createIndex }.map {
                    StoreInspection.Index(name: $0.name, columns: $0.columnNames.map { $0 ?? "<expression>" }, isUnique: $0.isUnique)
                }
                let rows = try connection.scalarInt64("SELECT count(*) FROM \(SchemaSQL.quote(name))") ?? 0
                tables.append(.init(name: name, columns: columns, indexes: indexes, rowCount: rows))
            }
            let byNumber = Dictionary(keyRows.map { ($0.number, $0) }, uniquingKeysWith: { a, _ in a })
            func root(_ row: EntityKeyRow) -> EntityKeyRow {
                var current = row
                var steps = 0
                while current.parent != 0, let parent = byNumber[current.parent], steps < 1000 { current = parent; steps += 1 }
                return current
            }
            let tableNames = Set(tables.map(\.name))
            var entities: [StoreInspection.Entity] = []
            for row in keyRows {
                let table = "Z" + root(row).name.uppercased()
                var count: Int64?
                if tableNames.contains(table) {
                    count = try connection.scalarInt64("SELECT count(*) FROM \(SchemaSQL.quote(table)) WHERE Z_ENT = ?", .integer(Int64(row.number)))
                }
                entities.append(.init(name: row.name, number: row.number, parent: row.parent == 0 ? nil : byNumber[row.parent]?.name,
                                      maxKey: row.maxKey, rowCount: count, storedHash: metadata.versionHashes[row.name]))
            }
            // An immutable read-only open reports "delete"; the header says what the file uses.
            let journal = headerSaysWAL ? "wal" : (try connection.scalarString("PRAGMA journal_mode") ?? "?")
            let size = (try connection.scalarInt64("PRAGMA page_count") ?? 0) * (try connection.scalarInt64("PRAGMA page_size") ?? 0)
            return StoreInspection(path: path, metadata: metadata, entities: entities, tables: tables,
                                   journalMode: journal, fileSize: size, cachedModel: cached ?? nil)
        } catch {
            throw StoreError.from(error, path: path)
        }
    }
}
