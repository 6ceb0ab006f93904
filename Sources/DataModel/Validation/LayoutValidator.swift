/// Checks what only the storage layout of a version shows, so that `validate`
/// refuses what `migrate create` could not make (rather than SQLite refusing it
/// with a raw error): schema names SQLite cannot tell apart, and tables or
/// indexes with more columns than SQLite allows.
///
/// Runs on a compiled version, with the description for locations; every problem
/// is reported at the model text that made the table or index.
enum LayoutValidator {
    /// SQLite's default `SQLITE_MAX_COLUMN`: the most columns a table or an index
    /// may have (https://www.sqlite.org/limits.html, item 2).
    static let maximumColumns = 2000

    /// Tables every store has besides the model's (`SchemaSQL.bookkeeping` in
    /// SQLiteStore, which DataModel cannot import): Core Data's two and ours.
    static let bookkeepingTables = ["Z_PRIMARYKEY", "Z_METADATA", "MM_MODELCACHE"]

    /// Every problem of `layout`, whose tables and indexes were made by `tables`
    /// and `indexes` (in the same order; `LayoutBuilder.buildTracingOrigins`).
    static func check(
        _ layout: StorageLayout, tables: [LayoutBuilder.Origin], indexes: [LayoutBuilder.Origin],
        of version: ModelVersionDescription
    ) -> [Diagnostic] {
        let origins = OriginText(version)
        return nameCollisions(layout, tables: tables, indexes: indexes, origins)
            + columnLimits(layout, tables: tables, indexes: indexes, origins)
    }

    /// Tables and indexes one name to SQLite. One namespace for tables and
    /// indexes, compared without regard to ASCII case, as SQLite compares identifiers.
    private static func nameCollisions(
        _ layout: StorageLayout, tables: [LayoutBuilder.Origin], indexes: [LayoutBuilder.Origin],
        _ origins: OriginText
    ) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        var taken: [String: (name: String, origin: LayoutBuilder.Origin?, isTable: Bool)] = [:]
        for name in bookkeepingTables { taken[asciiLowercased(name)] = (name, nil, true) }
        let objects =
            zip(layout.tables.map(\.name), tables).map { ($0, $1, true) }
            + zip(layout.indexes.map(\.name), indexes).map { ($0, $1, false) }
        // Two join tables of one name also have indexes of one name: one problem.
        var collidedTables: Set<String> = []
        let indexTables =
            [String?](repeating: nil, count: layout.tables.count)
            + layout.indexes.map { Optional(asciiLowercased($0.table)) }
        for (position, (name, origin, isTable)) in objects.enumerated() {
            let key = asciiLowercased(name)
            guard let first = taken[key] else {
                taken[key] = (name, origin, isTable)
                continue
            }
            if isTable { collidedTables.insert(key) }
            if let table = indexTables[position], collidedTables.contains(table) { continue }
            let (entity, location) = origins.source(origin)
            let this = origins.describe(origin, isTable: isTable, from: entity)
            let other = origins.describe(first.origin, isTable: first.isTable, from: entity)
            let names =
                first.name == name
                ? "are both named \(name) in the store"
                : "are named \(first.name) and \(name) in the store, one name to SQLite (it ignores case)"
            let hint: String
            if case .index = origin { hint = "rename the index" } else { hint = "rename one of them" }
            diagnostics.append(
                Diagnostic(.error, "entity '\(entity)': \(this) and \(other) \(names)", at: location, hint: hint))
        }
        return diagnostics
    }

    /// Tables and indexes with more columns than SQLite allows.
    private static func columnLimits(
        _ layout: StorageLayout, tables: [LayoutBuilder.Origin], indexes: [LayoutBuilder.Origin],
        _ origins: OriginText
    ) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        for (table, origin) in zip(layout.tables, tables) where table.columns.count > maximumColumns {
            let (entity, location) = origins.source(origin)
            diagnostics.append(
                Diagnostic(
                    .error,
                    """
                    entity '\(entity)': its table \(table.name) needs \(table.columns.count) columns, more than SQLite \
                    allows (\(maximumColumns))
                    """,
                    at: location,
                    hint:
                        "the table holds Z_PK, Z_ENT, Z_OPT and the columns of every entity under '\(entity)' "
                        + "(attributes, relationship keys, "
                        + "entity and order columns); move some attributes to a related entity"))
        }
        for (index, origin) in zip(layout.indexes, indexes) where index.columns.count > maximumColumns {
            let (entity, location) = origins.source(origin)
            diagnostics.append(
                Diagnostic(
                    .error,
                    """
                    entity '\(entity)': \(origins.describe(origin, isTable: false, from: entity)) has \
                    \(index.columns.count) columns, more than SQLite allows (\(maximumColumns))
                    """,
                    at: location))
        }
        return diagnostics
    }

    /// SQLite folds only ASCII letters when it compares identifiers.
    static func asciiLowercased(_ text: String) -> String {
        String(decoding: text.utf8.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }, as: UTF8.self)
    }
}

/// Where the model text that made a table or index is, and how to name the
/// object for people.
private struct OriginText {
    let byName: [String: EntityDescription]
    let fallback: SourceLocation

    init(_ version: ModelVersionDescription) {
        var byName: [String: EntityDescription] = [:]
        for entity in version.entities where byName[entity.name] == nil { byName[entity.name] = entity }
        self.byName = byName
        fallback = SourceLocation(file: version.file, line: 1, column: 1)
    }

    /// Where the model text that made an object is, and its entity.
    func source(_ origin: LayoutBuilder.Origin) -> (entity: String, location: SourceLocation) {
        switch origin {
        case .entity(let e):
            return (e, byName[e]?.location ?? fallback)
        case .attribute(let e, let name), .relationship(let e, let name):
            return (e, byName[e]?.location(ofProperty: name) ?? byName[e]?.location ?? fallback)
        case .uniqueness(let e, let position):
            let constraints = byName[e]?.uniqueness ?? []
            return (e, position < constraints.count ? constraints[position].location : byName[e]?.location ?? fallback)
        case .index(let e, let position):
            let written = byName[e]?.indexes ?? []
            return (e, position < written.count ? written[position].location : byName[e]?.location ?? fallback)
        }
    }

    /// The object for people; "of entity 'X'" is left out when X is `subject`.
    func describe(_ origin: LayoutBuilder.Origin?, isTable: Bool, from subject: String) -> String {
        guard let origin else { return "the store's bookkeeping table" }
        let (entity, _) = source(origin)
        let of = entity == subject ? "" : " of entity '\(entity)'"
        switch origin {
        case .entity:
            return isTable
                ? (of.isEmpty ? "its table" : "the table\(of)")
                : (of.isEmpty ? "its Z_ENT index" : "the Z_ENT index\(of)")
        case .attribute(_, let name):
            return "the index of attribute '\(entity).\(name)'"
        case .relationship(_, let name):
            return isTable
                ? "the join table of relationship '\(entity).\(name)'" : "the index of relationship '\(entity).\(name)'"
        case .uniqueness(_, let position):
            let constraints = byName[entity]?.uniqueness ?? []
            let names = position < constraints.count ? constraints[position].properties.joined(separator: ", ") : "?"
            return "the index of uniqueness constraint [\(names)]\(of)"
        case .index(_, let position):
            let written = byName[entity]?.indexes ?? []
            return "index '\(position < written.count ? written[position].name : "?")'\(of)"
        }
    }
}
