import DataModel
import Mapping
import Predicates
import SQLiteStore

/// Relationship columns that follow other rows: entity-type columns (`Z<n>_<NAME>`),
/// pairs made one-to-one, and the counts later steps are costed by.
extension SegmentPlanner {
    /// Sets the entity-type columns (`Z<n>_<NAME>`) that may be stale: on tables
    /// built anew, new columns, and references into tables built anew or whose
    /// entities changed number. One `UPDATE` per column, after every table is in place.
    mutating func entityTypeSteps(rebuilt: Set<String>) throws {
        for table in destinationLayout.tables where table.joinRelationship == nil {
            for column in table.columns {
                guard let (key, target, targetTable, label) = entityColumnSource(table, column) else { continue }
                let old = sourceLayout.table(named: tableRenamedFrom(table) ?? table.name)
                let renumbered = subtree(destination, target).contains { name in
                    sourceEntity(for: name).flatMap { sourceLayout.entityNumbers[$0.name] }
                        != destinationLayout.entityNumbers[name]
                }
                let stale =
                    rebuilt.contains(table.name) || rebuilt.contains(targetTable) || renumbered
                    || old?.column(for: column.role)?.name != column.name
                guard stale else { continue }
                steps.append(
                    .updateRows(
                        .init(
                            summary: "set \(table.name).\(column.name), the entity of each \(label) destination",
                            sql: [
                                """
                                UPDATE \(SQLText.q(table.name)) SET \(SQLText.q(column.name)) = \
                                (SELECT d.Z_ENT FROM \(SQLText.q(targetTable)) AS d \
                                WHERE d.Z_PK = \(SQLText.q(table.name)).\(SQLText.q(key.name)))
                                """
                            ],
                            cost: .update(rows: try countAfter(table.name)), table: table.name)))
                if let check = entityTypeCheck(table, column), !checks.contains(check) { checks.append(check) }
            }
        }
    }

    /// One-to-one pairs whose sides were not already inverse to-ones (a side was
    /// to-many, or the inverse is new): the side made to-one keeps its lowest
    /// destination (as planned), the other side is set from it, and pairings that
    /// then disagree are cleared, so both sides agree. Returns the tables changed.
    mutating func oneToOneSteps() throws -> Set<String> {
        var changed: Set<String> = []
        for entity in destination.entities {
            for r in entity.relationships
            where r.declaredIn == entity.name && !r.declaration.isToMany && !r.declaration.isTransient {
                guard let inverseName = r.declaration.inverse, let inverseOwner = r.inverseEntity,
                    let inverse = destination.entity(named: inverseOwner)?.relationship(named: inverseName),
                    !inverse.declaration.isToMany,
                    (r.declaredIn, r.name) < (inverse.declaredIn, inverse.name)
                else { continue }
                if wasOneToOne(r) && wasOneToOne(inverse) { continue }
                // Both sides new: nothing stored yet (a side moved up to a new parent is carried
                // by the subentities that had it).
                if !isCarried(r) && !isCarried(inverse) { continue }
                // A: the side made to-one (a reshape), else the first by name.
                let (a, b) = isReshaped(inverse) && !isReshaped(r) ? (inverse, r) : (r, inverse)
                guard let tableA = destinationLayout.table(forEntity: destination.entity(named: a.declaredIn)!.root),
                    let tableB = destinationLayout.table(forEntity: destination.entity(named: b.declaredIn)!.root),
                    let columnA = tableA.column(for: .toOne(entity: a.declaredIn, relationship: a.name)),
                    let columnB = tableB.column(for: .toOne(entity: b.declaredIn, relationship: b.name))
                else { continue }
                let (na, nb) = (
                    numbers(destinationLayout, subtree(destination, a.declaredIn)),
                    numbers(destinationLayout, subtree(destination, b.declaredIn))
                )
                let (qa, qb, ca, cb) = (
                    SQLText.q(tableA.name), SQLText.q(tableB.name), SQLText.q(columnA.name), SQLText.q(columnB.name)
                )
                steps.append(
                    .updateRows(
                        .init(
                            summary:
                                """
                                set \(b.declaredIn).\(b.name) from \(a.declaredIn).\(a.name), so the one-to-one agrees
                                """,
                            sql: [
                                """
                                UPDATE \(qb) SET \(cb) = (SELECT a.Z_PK FROM \(qa) AS a WHERE a.\(ca) = \(qb).Z_PK AND \
                                a.Z_ENT IN (\(SQLText.list(na))) ORDER BY a.Z_PK LIMIT 1) WHERE Z_ENT IN \
                                (\(SQLText.list(nb)))
                                """,
                                """
                                UPDATE \(qa) SET \(ca) = NULL WHERE Z_ENT IN (\(SQLText.list(na))) AND \(ca) IS NOT \
                                NULL AND NOT EXISTS (SELECT 1 FROM \(qb) AS b WHERE b.Z_PK = \(qa).\(ca) AND b.\(cb) = \
                                \(qa).Z_PK)
                                """,
                            ],
                            cost: .update(
                                rows: try countAfter(tableA.name).adding(saturating: countAfter(tableB.name))),
                            table: tableB.name)))
                warnings.append(
                    MigrationWarning(
                        message: """
                            \(a.declaredIn).\(a.name) and \(b.declaredIn).\(b.name) become a one-to-one: \
                            each object keeps at most one partner, the one with the lowest primary key; \
                            other pairings are cleared
                            """, isDestructive: true, subject: "\(a.declaredIn).\(a.name)"))
                changed.formUnion([tableA.name, tableB.name])
            }
        }
        return changed
    }

    /// True when a destination to-one relationship comes from a to-one whose
    /// inverse was a to-one too (its pairs already agree).
    /// A relationship moved up to a new parent is judged by the subentities that carry it
    /// (BookPlayer 7 → 8: `LibraryItem.lastPlayed` was `Book.lastPlayed`): every one that
    /// pairs it must have had a one-to-one, and at least one must pair it.
    func wasOneToOne(_ relationship: CompiledRelationship) -> Bool {
        var paired = false
        for holder in destination.subtree(of: relationship.declaredIn) {
            guard let sourceOwner = sourceEntity(for: holder), let from = sourceName(holder, relationship.name) else {
                continue
            }
            guard let old = sourceOwner.relationship(named: from), !old.declaration.isToMany,
                let oldInverse = old.declaration.inverse, let oldInverseOwner = old.inverseEntity,
                let oldInverseRelationship = source.entity(named: oldInverseOwner)?.relationship(named: oldInverse),
                !oldInverseRelationship.declaration.isToMany
            else { return false }
            paired = true
        }
        return paired
    }

    /// Whether some mapping into the relationship's entity or a subentity carries it from
    /// a source relationship.
    func isCarried(_ relationship: CompiledRelationship) -> Bool {
        destination.subtree(of: relationship.declaredIn).contains { sourceName($0, relationship.name) != nil }
    }

    /// True when a destination to-one relationship is a former to-many.
    func isReshaped(_ relationship: CompiledRelationship) -> Bool {
        if case .convert(_, .reshape)? = mapping.mapping(forDestination: relationship.declaredIn)?.property(
            relationship.name)?.source
        {
            return true
        }
        return false
    }

    func entityColumnSource(_ table: Table, _ column: Column) -> (
        key: Column, target: String, targetTable: String, label: String
    )? {
        checkBuilder.entityColumnSource(table, column)
    }

    func entityTypeCheck(_ table: Table, _ column: Column) -> MigrationCheck? {
        checkBuilder.entityTypeCheck(table, column)
    }

    /// Rows a destination table will hold: counted on the table it comes from.
    func countAfter(_ table: String) throws -> Int64 {
        if let old = joinTablesRenamedFrom[table] { return try count(old, nil) }
        if let old = sourceLayout.table(named: table) { return try count(old.name, nil) }
        if let new = destinationLayout.table(named: table), let renamed = tableRenamedFrom(new) {
            return try count(renamed, nil)
        }
        let hierarchy = destination.entities.filter { destinationLayout.table(forEntity: $0.root)?.name == table }
        var total: Int64 = 0
        for entity in hierarchy {
            for s in sourceEntities(for: entity.name) {
                guard let old = sourceLayout.table(forEntity: s.root), let n = sourceLayout.entityNumbers[s.name] else {
                    continue
                }
                total = total.adding(saturating: try count(old.name, [n]))
            }
        }
        return total
    }

    /// Whether a mapping file fills `entity.relationship` through a key path.
    func isComputed(_ entity: String, _ relationship: String) -> Bool {
        if case .expression? = mapping.mapping(forDestination: entity)?.property(relationship)?.source { return true }
        return false
    }

    /// A to-one a mapping file fills through a key path of to-ones (`$source.country.continent`,
    /// MappingFiles.md): the key of the object reached, read on the source row `s`. The
    /// objects keep their keys when their entity mapping carries them over, so the source
    /// key is the destination key, as for a copied relationship.
    func computedToOne(
        _ entity: CompiledEntity, _ relationship: CompiledRelationship, sourceEntity: CompiledEntity,
        arguments: inout [DatabaseValue]
    ) throws -> String? {
        guard
            case .expression(let keys, _)? = mapping.mapping(forDestination: entity.name)?.property(relationship.name)?
                .source
        else { return nil }
        // The object another mapping made of this row's source object: it kept the row's key.
        if keys == MappingResolver.sameSourceObject { return "s.Z_PK" }
        let checked = try TypeChecker(version: source, entity: sourceEntity.name, rowVariables: ["source"]).expression(
            keys)
        let fragment = try PredicateSQL(version: source, layout: sourceLayout).value(checked, row: "s")
        arguments += fragment.arguments
        return "(\(fragment.sql))"
    }
}
