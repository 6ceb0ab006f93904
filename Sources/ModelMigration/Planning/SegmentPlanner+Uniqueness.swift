import DataModel
import Mapping
import SQLiteStore

/// New or changed uniqueness constraints: the values the hop copies must be unique,
/// checked on the source tables.
extension SegmentPlanner {
    mutating func addUnique(_ index: StorageLayout.Index, file: String) {
        // Only constraints that are new or changed, or whose values a fill changes, on
        // a table whose rows come from the store, need the data's consent.
        let unchanged =
            sourceLayout.indexes.first(where: { $0.name == index.name }).map({ SchemaSQL.createIndex($0) })
            == SchemaSQL.createIndex(index)
        guard let table = destinationLayout.table(named: index.table), table.joinRelationship == nil else { return }
        // A subentity's constraint over an inherited attribute binds the values the
        // subentity's own mapping gives (fuzzer seed 1100 trial 231: its `default: null`
        // was judged by the parent's copy).
        let constrained = constrainedEntity(of: index)
        guard let values = uniqueValues(of: index, in: table, constrained: constrained) else { return }
        var (owners, keptOwners) = (values.owners, values.keptOwners)
        let (sourceColumns, filled) = (values.columns, values.filled)
        guard let sourceTable = values.table, !sourceColumns.isEmpty, !unchanged || filled else { return }
        // A subentity's constraint binds its own objects (the index is partial,
        // `Z_ENT IN (…)`), not those of the parent or siblings sharing the columns.
        // A new subentity has no stored objects: its constraint binds none.
        if let constrained {
            guard let old = sourceEntity(for: constrained) else { return }
            (owners, keptOwners) = ([old.name], [constrained])
        }
        let scope = owners.flatMap { numbers(sourceLayout, subtree(source, $0)) }
        if !filled
            && provenUnique(sourceColumns, in: sourceTable, scope: "Z_ENT IN (\(SQLText.list(Array(Set(scope)))))")
        {
            return
        }
        let (duplicates, groups) = Self.duplicateQueries(
            sourceColumns, in: sourceTable,
            where: "Z_ENT IN (\(SQLText.list(Array(Set(scope)))))" + keptCondition(keptOwners, in: sourceTable))
        let names = index.columns.map(\.name).joined(separator: ", ")
        requirements.append(
            MigrationCheck(
                summary: unchanged
                    ? """
                    unique index \(index.name) (\(names)) on \(index.table): the nils this hop fills with defaults \
                    make stored values equal
                    """
                    : """
                    unique index \(index.name) (\(names)) is new on \(index.table), and stored values are held by \
                    several objects
                    """,
                sql: "SELECT count(*) FROM (\(duplicates))",
                rowsSQL:
                    "SELECT value || ' × ' || n || ' (Z_PK ' || keys || ')' FROM (\(groups)) ORDER BY value LIMIT 5",
                remedy:
                    """
                    make those values unique first, or write \(file) with a policy that merges or renames them (see \
                    Docs/Policies.md)
                    """
            ))
    }

    /// What a unique index compares, row by row, as the hop's copy gives it: the source
    /// table, the SQL of each value, the source and destination entities whose objects
    /// it binds, and whether a fill with defaults changes values. Nil when the data need
    /// not consent (every row nil, a custom mapping, values only the hop writes) or the
    /// values come from more than one table.
    struct UniqueValues {
        var table: String?
        var columns: [String] = []
        var owners: Set<String> = []
        var keptOwners: Set<String> = []
        var filled = false
    }

    /// The values `index` compares as the hop copies them (``UniqueValues``).
    func uniqueValues(
        of index: StorageLayout.Index, in table: StorageLayout.Table, constrained: String?
    ) -> UniqueValues? {
        var result = UniqueValues()
        for indexColumn in index.columns {
            guard let column = table.columns.first(where: { $0.name == indexColumn.name }),
                case .attribute(let declarer, let property) = column.role
            else { return nil }
            let owner = constrained ?? declarer
            guard let entity = destination.entity(named: owner), let old = sourceEntity(for: owner),
                let entityMapping = mapping.mapping(forDestination: owner), entityMapping.kind != .custom
            else { return nil }
            // Subentities reading the property from columns of their own (moved up):
            // only the hop writes the values, and the index step names duplicates.
            if readBySubentities(owner, property) { return nil }
            let source = entityMapping.property(property)?.source
            switch source {
            case .copy(let from)?, .convert(let from, .widen)?, .convert(let from, .fillDefault)?:
                guard let oldColumn = sourceColumn(old, from), let oldTable = sourceLayout.table(forEntity: old.root)
                else { return nil }
                if result.table != nil && result.table != oldTable.name { return nil }
                result.table = oldTable.name
                let value = copiedValue(
                    source, into: entity.attribute(named: property)?.declaration, from: oldColumn.name)
                result.columns.append(value.sql)
                result.filled = result.filled || value.filled
                result.owners.insert(old.name)
                result.keptOwners.insert(owner)
            case .defaultValue(nil)?, .none:
                return nil  // every row holds nil: SQLite's unique indexes never compare nils
            case .defaultValue(let value?)?:
                // One value for every row: it tells no rows apart, and over constants
                // alone any two rows collide. `coalesce` keeps an integer default from
                // reading as a column number in GROUP BY.
                guard let type = entity.attribute(named: property)?.declaration.type,
                    let oldTable = sourceLayout.table(forEntity: old.root)
                else { return nil }
                if result.table != nil && result.table != oldTable.name { return nil }
                result.table = oldTable.name
                result.columns.append("coalesce(\(SQLText.literal(value, as: type)), NULL)")
                result.owners.insert(old.name)
                result.keptOwners.insert(owner)
            default:
                return nil
            }
        }
        return result
    }

    /// Whether a unique index the store already has on these columns (or some of
    /// them), over all the rows in scope, proves there are no duplicates: counting
    /// them would read every row for nothing.
    func provenUnique(_ columns: [String], in table: String, scope: String) -> Bool {
        sourceLayout.indexes.contains { existing in
            existing.isUnique && existing.table == table && !existing.columns.isEmpty
                && existing.columns.allSatisfy { columns.contains(SQLText.q($0.name)) }
                && (existing.condition == nil || existing.condition == scope)
        }
    }

    /// The rows of a unique index's table, as the hop wrote them, that hold the
    /// same values: named when SQLite refuses to create the index.
    func duplicatesCheck(_ index: StorageLayout.Index) -> MigrationCheck {
        let (duplicates, groups) = Self.duplicateQueries(
            index.columns.map { SQLText.q($0.name) }, in: index.table, where: index.condition ?? "1")
        let names = index.columns.map(\.name).joined(separator: ", ")
        let file = "Migrations/\(destination.model)/\(source.version)-to-\(destination.version).yaml"
        return MigrationCheck(
            summary:
                """
                unique index \(index.name) (\(names)) on \(index.table): the values this hop writes are held by \
                several objects
                """,
            sql: "SELECT count(*) FROM (\(duplicates))",
            rowsSQL: "SELECT value || ' × ' || n || ' (Z_PK ' || keys || ')' FROM (\(groups)) ORDER BY value LIMIT 5",
            remedy:
                """
                make those values unique first, or write \(file) with a policy that merges or renames them (see \
                Docs/Policies.md)
                """
        )
    }

    /// The groups of rows (`scope` a condition on `table`) holding the same non-nil
    /// values of `columns` more than once: one row per group to count them (each
    /// group read once), and the values with their count and keys, to name them.
    static func duplicateQueries(_ columns: [String], in table: String, where scope: String) -> (
        count: String, named: String
    ) {
        let rows =
            """
            FROM \(SQLText.q(table)) WHERE \(scope) AND \
            \(columns.map { "\($0) IS NOT NULL" }.joined(separator: " AND "))
            """
        let grouped = "GROUP BY \(columns.joined(separator: ", ")) HAVING count(*) > 1"
        let shown = columns.map { SQLText.shownValue($0) }.joined(separator: " || ', ' || ")
        return (
            "SELECT 1 \(rows) \(grouped)",
            "SELECT \(shown) AS value, count(*) AS n, group_concat(Z_PK, ', ') AS keys \(rows) \(grouped)"
        )
    }

    /// The subentity whose uniqueness constraint a partial unique index is (nil for
    /// a root entity's, whose index covers its whole table).
    func constrainedEntity(of index: StorageLayout.Index) -> String? {
        guard index.condition != nil else { return nil }
        return destination.entities.first { entity in
            entity.parent != nil
                && entity.uniqueness.contains { "Z_\(entity.name)_UNIQUE_\($0.joined(separator: "_"))" == index.name }
        }?.name
    }
}
