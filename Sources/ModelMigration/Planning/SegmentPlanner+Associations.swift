import DataModel
import Mapping
import SQLiteStore

/// References into objects a policy made follow the policy's associations.
///
/// Core Data's inferred relationship mapping sets a relationship with
/// `FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:",
/// "<mapping>", $source.<relationship>)`: the destination of a reference is the
/// object the migration manager associated with the old one. Set-based steps copy
/// keys as they were, which is the same thing while a policy keeps each object's key
/// (`createDestinationInstance(for:)` does), but not when it merges objects (a
/// source object associated with another's destination object) or gives new keys.
/// After the hop's tables are in place, every reference into a table a policy built
/// that does not resolve is pointed at the object its old target was associated
/// with (the lowest key when several), or cleared (a pair removed) when the policy
/// made nothing from it; the hop's checks then prove every reference resolves.
extension SegmentPlanner {
    mutating func repointThroughAssociations() throws {
        for entityMapping in mapping.entityMappings where entityMapping.kind == .custom && entityMapping.policy != nil {
            guard let made = entityMapping.destination, let entity = destination.entity(named: made),
                let madeTable = destinationLayout.table(forEntity: entity.root)
            else { continue }
            for table in destinationLayout.tables {
                for column in table.columns {
                    guard let target = referencedEntity(column, in: table), subtree(destination, target).contains(made)
                    else { continue }
                    try repoint(table, column, into: madeTable, target: target, through: entityMapping.name)
                    if case .toOne(let owner, let name) = column.role,
                        destination.entity(named: owner)?.relationship(named: name)?.declaration.isOptional == false
                    {
                        let check = checkBuilder.required(
                            "\(owner).\(name) is set", owner: owner, table: table, column: column)
                        if !checks.contains(check) { checks.append(check) }
                    }
                }
            }
            for check in checkBuilder.referenceChecks(into: madeTable.name) where !checks.contains(check) {
                checks.append(check)
            }
        }
    }

    /// Columns of a table a policy builds that belong to other entities'
    /// relationships — the key of a to-many without an inverse (`Club.fans` stored on
    /// the fan's row) and the position in an ordered to-many — are not the policy's
    /// object's properties, so it never writes them: each destination row takes them
    /// from the source row of its key (the rows keep their keys; a merged object
    /// keeps its own). Run right after the policy step, while the old table exists.
    mutating func carryOtherEntitiesColumns(buildTables: [String: String]) throws {
        var done: Set<String> = []
        for entityMapping in mapping.entityMappings where entityMapping.kind == .custom && entityMapping.policy != nil {
            guard let made = entityMapping.destination, let entity = destination.entity(named: made),
                let table = destinationLayout.table(forEntity: entity.root), let build = buildTables[table.name],
                let sourceName = entityMapping.source, let sourceEntity = source.entity(named: sourceName),
                let old = sourceLayout.table(forEntity: sourceEntity.root), !done.contains(table.name)
            else { continue }
            done.insert(table.name)
            var sets: [String] = []
            for column in table.columns {
                switch column.role {
                case .toManyKey, .order:
                    guard let from = old.column(for: column.role) else { continue }
                    let c = SQLText.q(column.name)
                    sets.append(
                        """
                        \(c) = coalesce(\(c), (SELECT s.\(SQLText.q(from.name)) FROM \(SQLText.q(old.name)) AS s WHERE \
                        s.Z_PK = \(SQLText.q(build)).Z_PK))
                        """
                    )
                default: continue
                }
            }
            guard !sets.isEmpty else { continue }
            steps.append(
                .updateRows(
                    .init(
                        summary:
                            """
                            carry \(table.name)'s keys and positions of other entities' to-many relationships from the \
                            source rows
                            """,
                        sql: ["UPDATE \(SQLText.q(build)) SET \(sets.joined(separator: ", "))"],
                        cost: .update(rows: try countAfter(table.name)), table: build)))
        }
    }

    /// The entity a key column points to: a to-one's destination, a to-many's owner
    /// (the column on its destination's table), a join table side.
    func referencedEntity(_ column: Column, in table: Table) -> String? {
        switch column.role {
        case .toOne(let owner, let name):
            destination.entity(named: owner)?.relationship(named: name)?.declaration.destination
        case .toManyKey(let owner, _): owner
        case .joinKey(let entity, _): entity
        default: nil
        }
    }

    mutating func repoint(
        _ table: Table, _ column: Column, into madeTable: Table, target: String, through mappingName: String
    ) throws {
        let targets = SQLText.list(numbers(destinationLayout, subtree(destination, target)))
        let names = subtree(destination, target).map { "'\($0)'" }.joined(separator: ", ")
        let c = SQLText.q(column.name)
        let t = SQLText.q(table.name)
        let unresolved =
            """
            \(t).\(c) IS NOT NULL AND NOT EXISTS (SELECT 1 FROM \(SQLText.q(madeTable.name)) AS d WHERE d.Z_PK = \
            \(t).\(c) AND d.Z_ENT IN (\(targets)))
            """
        let associated = """
            (SELECT min(a.destination) FROM mm_associations AS a WHERE a.mapping = ? AND a.source = \(t).\(c) AND \
            a.entity IN (\(names)))
            """
        var statements: [SQLFragment] = []
        if case .joinKey = column.role {
            // A pair whose old object was merged into one already paired is the same
            // pair: the update leaves it (OR IGNORE) and the delete removes it.
            statements.append(
                SQLFragment("UPDATE OR IGNORE \(t) SET \(c) = \(associated) WHERE \(unresolved)", [.text(mappingName)]))
            statements.append(SQLFragment("DELETE FROM \(t) WHERE \(unresolved)"))
        } else {
            var sets = ["\(c) = \(associated)"]
            var arguments: [DatabaseValue] = [.text(mappingName)]
            if case .toOne(let owner, let name) = column.role,
                let entityColumn = table.column(for: .toOneEntity(entity: owner, relationship: name))
            {
                sets.append(
                    """
                    \(SQLText.q(entityColumn.name)) = (SELECT d.Z_ENT FROM \(SQLText.q(madeTable.name)) AS d WHERE \
                    d.Z_PK = \(associated))
                    """
                )
                arguments.append(.text(mappingName))
            }
            if case .toManyKey(let owner, let name) = column.role,
                let order = table.column(for: .order(entity: owner, relationship: name))
            {
                sets.append(
                    """
                    \(SQLText.q(order.name)) = CASE WHEN \(associated) IS NULL THEN NULL ELSE \(SQLText.q(order.name)) \
                    END
                    """
                )
                arguments.append(.text(mappingName))
            }
            statements.append(
                SQLFragment("UPDATE \(t) SET \(sets.joined(separator: ", ")) WHERE \(unresolved)", arguments))
        }
        steps.append(
            .updateRows(
                .init(
                    summary:
                        """
                        point \(table.name).\(column.name) at the \(target) objects policy mapping \(mappingName) \
                        associated with the old ones
                        """,
                    statements: statements, cost: .update(rows: try countAfter(table.name)), table: table.name)))
    }
}
