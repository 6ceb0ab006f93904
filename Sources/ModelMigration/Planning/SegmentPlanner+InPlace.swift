import DataModel
import Mapping
import SQLiteStore

/// Tables SQLite can change without touching their rows: `ALTER TABLE … RENAME`,
/// `ADD COLUMN`, `RENAME COLUMN`, `DROP COLUMN`, scoped updates.
extension SegmentPlanner {
    // MARK: In place (ALTER TABLE)

    /// The source table a fast-path destination table comes from, when renamed.
    func tableRenamedFrom(_ table: Table) -> String? {
        guard table.joinRelationship == nil else { return nil }
        let hierarchy = destination.entities.filter { $0.root == table.entity }
        // A table of an additional mapping's objects is built from its source table, never renamed from it.
        let sourceRoots = Set(
            hierarchy.filter { !mapping.isAdditional(destination: $0.name) }.compactMap {
                sourceEntity(for: $0.name)?.root
            })
        guard let root = sourceRoots.first, let old = sourceLayout.table(forEntity: root), old.name != table.name else {
            return nil
        }
        return old.name
    }

    func tableRenamed(_ name: String) -> Bool {
        sourceLayout.table(named: name) != nil && destinationLayout.table(named: name) == nil
    }
    func tableRenamedInto(_ name: String) -> Bool {
        guard let table = destinationLayout.table(named: name) else { return false }
        return tableRenamedFrom(table) != nil
    }

    /// How a destination column gets its value from a row of `sourceTable`, when
    /// no other table is needed: a source column (same storage) or a constant.
    enum InPlace: Equatable {
        case same(String)
        case constant(String)
        case fill(String, String)  // source column, default literal for NULLs
    }

    func inPlace(_ column: Column, of table: Table) -> InPlace? {
        switch column.role {
        case .primaryKey, .entityNumber, .changeCounter: return .same(column.name)
        case .attribute(let owner, let property):
            guard let entity = destination.entity(named: owner), let attribute = entity.attribute(named: property)
            else { return nil }
            // Every entity whose rows hold the column must fill it the same way: a
            // property moved up a hierarchy comes from each subentity's own mapping.
            let storing = destination.entities.filter {
                lineageNames(destination, $0.name).contains(owner) && sourceEntity(for: $0.name) != nil
            }
            var result: InPlace?
            for name in storing.isEmpty ? [owner] : storing.map(\.name) {
                guard let how = inPlace(column, attribute: attribute, storedBy: name) else { return nil }
                if let result, result != how { return nil }
                result = how
            }
            return result
        case .toOne(let owner, let name):
            guard let entity = destination.entity(named: owner), let relationship = entity.relationship(named: name)
            else { return nil }
            // Filled through a key path (a mapping file's value): computed in a rebuild.
            if subtree(destination, owner).contains(where: { isComputed($0, name) }) { return nil }
            guard let found = pairs(for: entity, relationship) else { return .constant("NULL") }
            if case .column(let tableName, let old, _) = found.source, !found.reversed,
                sourceLayout.table(named: tableName)?.column(for: .toOne(entity: owner, relationship: name)) != nil
                    || tableName == (tableRenamedFrom(table) ?? table.name)
            {
                return .same(old)
            }
            return nil
        case .order(let owner, let name):
            guard let entity = destination.entity(named: owner), let relationship = entity.relationship(named: name)
            else { return nil }
            guard let found = pairs(for: entity, relationship) else { return .constant("NULL") }
            if case .reverseColumn(_, _, let order?) = found.source, !found.reversed { return .same(order) }
            return nil
        case .toManyKey(let owner, let name):
            guard let entity = destination.entity(named: owner), let relationship = entity.relationship(named: name)
            else { return nil }
            guard let found = pairs(for: entity, relationship) else { return .constant("NULL") }
            if case .reverseColumn(let tableName, let column, _) = found.source, !found.reversed,
                tableName == (tableRenamedFrom(table) ?? table.name)
            {
                return .same(column)
            }
            return nil
        case .toOneEntity:
            // Kept when the table already has it; otherwise added empty and set by
            // `entityTypeSteps` from the destination rows.
            if let old = sourceLayout.table(named: tableRenamedFrom(table) ?? table.name),
                old.column(for: column.role)?.name == column.name
            {
                return .same(column.name)
            }
            return .constant("NULL")
        case .joinKey:
            return nil
        }
    }

    /// How an attribute column is filled in place for the rows of one entity.
    func inPlace(_ column: Column, attribute: CompiledAttribute, storedBy entity: String) -> InPlace? {
        let type = attribute.declaration.type
        switch mapping.mapping(forDestination: entity)?.property(attribute.name)?.source {
        case .copy(let from)?:
            guard let sourceEntity = sourceEntity(for: entity), let old = sourceColumn(sourceEntity, from),
                old.type == column.type,
                sourceEntity.attribute(named: from)?.declaration.allowsExternalStorage
                    == attribute.declaration.allowsExternalStorage
            else { return nil }
            return .same(old.name)
        case .convert(let from, .widen)?:
            guard let sourceEntity = sourceEntity(for: entity), let old = sourceColumn(sourceEntity, from),
                old.type == column.type
            else { return nil }
            // Widened and made required in one go: nil values take the default too.
            if !attribute.declaration.isOptional, let value = attribute.declaration.defaultValue,
                sourceEntity.attribute(named: from)?.declaration.isOptional == true
            {
                return .fill(old.name, SQLText.literal(value, as: type))
            }
            return .same(old.name)
        case .convert(let from, .fillDefault)?:
            guard let sourceEntity = sourceEntity(for: entity), let old = sourceColumn(sourceEntity, from),
                old.type == column.type
            else { return nil }
            return .fill(old.name, SQLText.literal(attribute.declaration.defaultValue, as: type))
        case .defaultValue(let value)?:
            return .constant(SQLText.literal(value, as: type))
        default:
            return nil
        }
    }

    func canAlter(_ table: Table, from old: Table) throws -> Bool {
        // Rows keep their Z_ENT in place: entities whose number changes need a rebuild.
        for entity in destination.entities where entity.root == table.entity {
            if let source = sourceEntity(for: entity.name), let old = sourceLayout.entityNumbers[source.name],
                old != destinationLayout.entityNumbers[entity.name]
            {
                return false
            }
        }
        // Every source entity in the old table must stay in this table or be removed.
        for entity in source.entities where sourceLayout.table(forEntity: entity.root)?.name == old.name {
            if let destination = mapping.keeper(ofSource: entity.name)?.destination,
                destinationLayout.table(forEntity: self.destination.entity(named: destination)!.root)?.name
                    != table.name
            {
                return false
            }
        }
        if mapping.entityMappings.contains(where: {
            ($0.kind == .custom || $0.filter != nil)
                && $0.destination.map { destination.entity(named: $0)?.root } == table.entity
        }) {
            return false
        }
        var used: Set<String> = []
        for column in table.columns {
            guard let how = inPlace(column, of: table) else { return false }
            switch how {
            case .same(let name), .fill(let name, _):
                guard old.columns.contains(where: { $0.name == name }), used.insert(name).inserted else { return false }
            case .constant:
                if old.columns.contains(where: { $0.name == column.name })
                    && !table.columns.contains(where: { inPlace($0, of: table) == .same(column.name) })
                {
                    // A stale column of that name would have to go first.
                    return false
                }
            }
        }
        // Columns left over hold dropped data. `ALTER TABLE … DROP COLUMN` rewrites
        // the rows in place (cheaper than a rebuild) unless an index uses the column.
        return droppedColumns(of: old, used: used) != nil
    }

    /// The columns of `old` no destination column uses, when SQLite can drop them
    /// in place (no index of the store uses them); nil otherwise.
    func droppedColumns(of old: Table, used: Set<String>) -> [Column]? {
        let leftover = old.columns.filter { !used.contains($0.name) }
        let indexed = Set(sourceLayout.indexes.filter { $0.table == old.name }.flatMap { $0.columns.map(\.name) })
        guard leftover.allSatisfy({ !indexed.contains($0.name) && $0.role != .primaryKey }) else { return nil }
        return leftover
    }

    /// A table SQLite changes in place: renamed, its dropped columns dropped, its
    /// columns renamed, added and filled, the rows of removed entities deleted.
    mutating func alter(_ table: Table) throws {
        let oldName = tableRenamedFrom(table) ?? table.name
        let old = sourceLayout.table(named: oldName)!
        if oldName != table.name {
            let current = temporaryTableNames[oldName] ?? oldName
            steps.append(
                .renameTable(
                    .init(
                        summary: "rename table \(oldName) to \(table.name)",
                        sql: ["ALTER TABLE \(SQLText.q(current)) RENAME TO \(SQLText.q(table.name))"], cost: .constant,
                        table: table.name)))
        }
        let used = Set(
            table.columns.compactMap { column -> String? in
                switch inPlace(column, of: table) {
                case .same(let name)?, .fill(let name, _)?: name
                default: nil
                }
            })
        let dropped = droppedColumns(of: old, used: used) ?? []
        try refuseDroppingKeptValues(dropped, of: old)
        try dropColumns(dropped, of: table, from: old)
        let changes = columnChanges(of: table)
        renameColumns(changes.renames, of: table, from: old, dropped: dropped)
        try addColumns(changes.adds, to: table, from: old)
        try fillColumns(changes.fills, of: table, from: old)
        try deleteRemovedEntities(from: table, old: old)
        addRequiredChecksOfKeptColumns(table)
    }

    /// A column kept as it is (renamed or not) whose attribute is required while its
    /// source was optional — a mapping file's `$source.x` into a required attribute,
    /// set as computed — is checked for nils after the hop, as Core Data's
    /// validation checks the value the mapping set.
    mutating func addRequiredChecksOfKeptColumns(_ table: Table) {
        for column in table.columns {
            guard case .attribute(let owner, let property) = column.role, case .same? = inPlace(column, of: table),
                destination.entity(named: owner)?.attribute(named: property)?.declaration.isOptional == false,
                !copiedFromRequired(owner, property),
                // Inference's optional → required is a requirement checked before the hop.
                !(mapping.requirements ?? []).contains(where: {
                    $0.kind == .noNil && $0.entity == owner && $0.property == property
                })
            else { continue }
            let check = checkBuilder.required(
                "\(owner).\(property) has a value", owner: owner, table: table, column: column)
            if !checks.contains(check) { checks.append(check) }
        }
    }

    /// A safety net: a column is dropped only when the mapping drops what it holds.
    func refuseDroppingKeptValues(_ dropped: [Column], of old: Table) throws {
        for column in dropped {
            let kept: Bool
            switch column.role {
            case .attribute(let entity, let property), .toOne(let entity, let property),
                .toManyKey(let entity, let property):
                kept = mapping.entityMappings.contains { m in
                    // An additional mapping's rows were built from the old table before it changes.
                    guard let s = m.source, m.kind != .remove, !mapping.isAdditional(m),
                        lineageNames(source, s).contains(entity)
                    else { return false }
                    return !m.droppedProperties.contains(property)
                        && m.properties.contains { p in
                            switch p.source {
                            case .copy(let from), .convert(let from, _): from == property
                            default: false
                            }
                        }
                }
            default: kept = false
            }
            if kept {
                throw PlanningError(
                    .failed,
                    """
                    refusing to plan: \(old.name).\(column.name) would be dropped although the mapping keeps its \
                    values (this is a bug in the planner; please report it)
                    """)
            }
        }
    }

    /// `DROP COLUMN` of each column the destination no longer has.
    mutating func dropColumns(_ dropped: [Column], of table: Table, from old: Table) throws {
        let oldName = old.name
        if !dropped.isEmpty {
            let rows = try count(oldName, nil)
            try warnDroppedColumns(dropped, in: old)
            for column in dropped {
                steps.append(
                    .dropColumn(
                        .init(
                            summary: "drop \(table.name).\(column.name) (SQLite rewrites the rows in place)",
                            sql: ["ALTER TABLE \(SQLText.q(table.name)) DROP COLUMN \(SQLText.q(column.name))"],
                            cost: .rewrite(rows: rows), table: table.name)))
            }
        }
    }

    /// What each destination column needs: a rename, a fill of nil values, or
    /// adding with a constant.
    func columnChanges(of table: Table) -> (
        fills: [(column: String, literal: String, scope: [Int]?)], renames: [(from: String, to: String)],
        adds: [(Column, String)]
    ) {
        var fills: [(column: String, literal: String, scope: [Int]?)] = []
        var renames: [(from: String, to: String)] = []
        var adds: [(Column, String)] = []
        for column in table.columns {
            switch inPlace(column, of: table)! {
            case .same(let name):
                if name != column.name { renames.append((name, column.name)) }
            case .fill(let name, let literal):
                if name != column.name { renames.append((name, column.name)) }
                fills.append((column.name, literal, ownerScope(column, in: table)))
            case .constant(let literal):
                adds.append((column, literal))
            }
        }
        return (fills, renames, adds)
    }

    /// Renames that land on a name another column still has (suffixes shifting
    /// when a property takes a name before them, numbers changing) go through
    /// temporary names, all at once.
    mutating func renameColumns(
        _ renames: [(from: String, to: String)], of table: Table, from old: Table, dropped: [Column]
    ) {
        let oldName = old.name
        let remaining = Set(old.columns.map(\.name)).subtracting(dropped.map(\.name))
        let collides = renames.contains { rename in remaining.contains(rename.to) }
        let moves: [(String, String)] =
            collides
            ? renames.enumerated().map { ($0.element.from, "MM_TMP_\($0.offset)") }
                + renames.enumerated().map { ("MM_TMP_\($0.offset)", $0.element.to) }
            : renames.map { ($0.from, $0.to) }
        for (from, to) in moves {
            steps.append(
                .renameColumn(
                    .init(
                        summary: "rename \(table.name).\(from) to \(to)",
                        sql: [
                            "ALTER TABLE \(SQLText.q(table.name)) RENAME COLUMN \(SQLText.q(from)) TO \(SQLText.q(to))"
                        ],
                        cost: .constant, table: table.name)))
        }
        if !renames.isEmpty {
            columnRenames[oldName] = Dictionary(renames.map { ($0.from, $0.to) }, uniquingKeysWith: { a, _ in a })
        }
    }

    /// New columns: `ADD COLUMN`, with its default, or (a subentity's column in a
    /// shared table) set in its own entity's rows only.
    mutating func addColumns(_ adds: [(Column, String)], to table: Table, from old: Table) throws {
        let oldName = old.name
        for (column, literal) in adds {
            // A subentity's column holds nil in the rows of every other entity of the
            // table (as Core Data writes them): a default goes into its own rows only.
            if literal != "NULL", let scope = ownerScope(column, in: table) {
                steps.append(
                    .addColumn(
                        .init(
                            summary: "add \(table.name).\(column.name)",
                            sql: [
                                """
                                ALTER TABLE \(SQLText.q(table.name)) ADD COLUMN \(SQLText.q(column.name)) \(column.type)
                                """
                            ],
                            cost: .constant, table: table.name)))
                if !scope.isEmpty {
                    steps.append(
                        .updateRows(
                            .init(
                                summary: "set \(table.name).\(column.name) to \(literal) in the rows of its entity",
                                sql: [
                                    """
                                    UPDATE \(SQLText.q(table.name)) SET \(SQLText.q(column.name)) = \(literal) \
                                    WHERE Z_ENT IN (\(SQLText.list(scope)))
                                    """
                                ],
                                cost: .update(rows: try count(oldName, scope)), table: table.name)))
                }
                continue
            }
            let defaultClause = literal == "NULL" ? "" : " DEFAULT \(literal)"
            steps.append(
                .addColumn(
                    .init(
                        summary:
                            "add \(table.name).\(column.name)\(defaultClause.isEmpty ? "" : " (default \(literal))")",
                        sql: [
                            """
                            ALTER TABLE \(SQLText.q(table.name)) ADD COLUMN \(SQLText.q(column.name)) \
                            \(column.type)\(defaultClause)
                            """
                        ],
                        cost: .constant, table: table.name)))
        }
    }

    /// Nil values of a column made required, filled with its default.
    mutating func fillColumns(
        _ fills: [(column: String, literal: String, scope: [Int]?)], of table: Table, from old: Table
    ) throws {
        let oldName = old.name
        // A fill writes the same value into many rows: a unique index this version
        // no longer has (or has changed) goes first, or it would refuse values the
        // destination allows (the index steps create the new ones after).
        let kept = Set(destinationLayout.indexes.map { SchemaSQL.createIndex($0) })
        for index in sourceLayout.indexes where index.table == oldName && index.isUnique && !fills.isEmpty {
            let now = index.renamingColumns(columnRenames[oldName] ?? [:])
            var moved = now
            moved.table = table.name
            guard !kept.contains(SchemaSQL.createIndex(moved)), !droppedBeforeFill.contains(index.name) else {
                continue
            }
            droppedBeforeFill.insert(index.name)
            steps.append(
                .dropIndex(
                    .init(
                        summary: "drop index \(index.name)", sql: ["DROP INDEX IF EXISTS \(SQLText.q(index.name))"],
                        cost: .constant, table: table.name)))
        }
        for (column, literal, scope) in fills {
            if let scope, scope.isEmpty { continue }
            let rows = try count(oldName, scope)
            let only = scope.map { " AND Z_ENT IN (\(SQLText.list($0)))" } ?? ""
            steps.append(
                .updateRows(
                    .init(
                        summary: "fill nil values of \(table.name).\(column) with \(literal)",
                        sql: [
                            """
                            UPDATE \(SQLText.q(table.name)) SET \(SQLText.q(column)) = \(literal) WHERE \
                            \(SQLText.q(column)) IS NULL\(only)
                            """
                        ],
                        cost: .update(rows: rows), table: table.name)))
        }
    }

    /// Rows of entities removed from this hierarchy: deleted, with a warning.
    mutating func deleteRemovedEntities(from table: Table, old: Table) throws {
        for entity in source.entities where sourceLayout.table(forEntity: entity.root)?.name == old.name {
            guard mapping.entityMappings.contains(where: { $0.kind == .remove && $0.source == entity.name }),
                let number = sourceLayout.entityNumbers[entity.name]
            else { continue }
            let rows = try count(old.name, [number])
            if rows > 0 {
                warnings.append(
                    MigrationWarning(
                        message:
                            "entity \(entity.name) is removed: its \(rows) row\(rows == 1 ? " is" : "s are") deleted",
                        isDestructive: true, subject: entity.name, count: rows))
            }
            steps.append(
                .deleteRows(
                    .init(
                        summary: "delete the rows of removed entity \(entity.name)",
                        sql: ["DELETE FROM \(SQLText.q(table.name)) WHERE Z_ENT = \(number)"],
                        cost: .update(rows: rows), table: table.name)))
            addReferenceChecks(into: table.name)
        }
    }

    /// For a column of a subentity in a table its hierarchy shares: the entity
    /// numbers (as the rows have them before this hop) of the rows that hold it;
    /// `nil` when every row of the table does.
    func ownerScope(_ column: Column, in table: Table) -> [Int]? {
        guard case .attribute(let owner, _) = column.role, let entity = destination.entity(named: owner),
            entity.parent != nil
        else { return nil }
        let members = Set(subtree(destination, owner))
        guard destination.entities.contains(where: { $0.root == table.entity && !members.contains($0.name) }) else {
            return nil
        }
        return members.compactMap { sourceEntity(for: $0) }.compactMap { sourceLayout.entityNumbers[$0.name] }.sorted()
    }
}
