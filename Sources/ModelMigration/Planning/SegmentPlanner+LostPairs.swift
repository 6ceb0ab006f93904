import DataModel
import Mapping
import SQLiteStore

/// Destructive warnings for what a relationship loses without a column of its own
/// being dropped: the pairs of a many-to-many (its join table's rows), and the
/// order of an ordered to-many made unordered (its order column).
extension SegmentPlanner {
    /// A to-many without an inverse keeps its pairs as a key column on its
    /// destination's rows (`Z1NI` on G's table for `E.ni`): when the relationship is
    /// dropped and that table is rebuilt or replaced, the column goes with no column
    /// of E's own dropped, so it is counted here.
    mutating func warnLostKeyColumns(_ tables: TablePlan) throws {
        for old in sourceLayout.tables
        where tables.rebuilt.contains(old.name) || destinationLayout.table(named: old.name) == nil {
            let lost = old.columns.filter { column in
                guard case .toManyKey(let entity, let relationship) = column.role else { return false }
                return source.entity(named: entity).map { mapping.mappings(fromSource: $0.name).isEmpty } ?? false
                    || mapping.droppedProperties(ofSource: entity).contains(relationship)
            }
            if !lost.isEmpty { try warnDroppedColumns(lost, in: old) }
        }
    }

    /// Warns for every source many-to-many whose join rows no destination
    /// relationship reads (both sides removed, or made transient) and every ordered
    /// to-many whose destination is no longer ordered, with the rows that lose data.
    mutating func warnLostPairs() throws {
        for entity in source.entities {
            for relationship in entity.relationships
            where relationship.declaredIn == entity.name && relationship.declaration.isToMany {
                guard let pairs = pairSource(entity, relationship.name) else { continue }
                // A policy reads every source relationship; what it keeps is its business.
                let owners = [entity.name, relationship.inverseEntity].compactMap { $0 }
                if mapping.entityMappings.contains(where: { $0.kind == .custom && owners.contains($0.source ?? "") }) {
                    continue
                }
                let kept = destinationRelationships(readingPairsOf: entity, relationship)
                if case .join(let table, _, _, _) = pairs, kept.isEmpty, isFirstSide(relationship) {
                    let rows = try count(table, nil)
                    if rows > 0 {
                        let inverse =
                            relationship.declaration.inverse.map {
                                " and its inverse \(relationship.declaration.destination).\($0)"
                            } ?? ""
                        warnings.append(
                            MigrationWarning(
                                message: """
                                    \(entity.name).\(relationship.name)\(inverse) \(inverse.isEmpty ? "is" : "are") \
                                    removed: \(rows) pair\(rows == 1 ? "" : "s") of the many-to-many (rows of \
                                    \(table)) will be deleted
                                    """, isDestructive: true, subject: "\(entity.name).\(relationship.name)",
                                count: rows))
                    }
                }
                guard relationship.declaration.isOrdered, !kept.isEmpty,
                    !kept.contains(where: { $0.declaration.isOrdered })
                else { continue }
                let ordered = try orderedRows(pairs)
                guard ordered != 0 else { continue }
                let counted =
                    ordered < 0
                    ? """
                    the positions of its objects (not counted in a table this large; `migrate plan --exact-counts` \
                    counts them)
                    """
                    : "the position\(ordered == 1 ? "" : "s") of \(ordered) object\(ordered == 1 ? "" : "s") in it"
                warnings.append(
                    MigrationWarning(
                        message: """
                            \(entity.name).\(relationship.name) is no longer ordered: \(counted) will be dropped
                            """, isDestructive: true, subject: "\(entity.name).\(relationship.name)",
                        count: ordered < 0 ? nil : ordered))
            }
        }
    }

    /// The destination relationships whose pairs are read from a source
    /// relationship: mapped from it, or from its inverse the other way round.
    func destinationRelationships(readingPairsOf entity: CompiledEntity, _ relationship: CompiledRelationship)
        -> [CompiledRelationship]
    {
        var found: [CompiledRelationship] = []
        for destinationEntity in destination.entities {
            // Inherited ones too: a subentity's mapping reads its own source
            // relationship into the relationship its parent now declares.
            for candidate in destinationEntity.relationships where !candidate.declaration.isTransient {
                guard let sourceOwner = sourceEntity(for: destinationEntity.name),
                    let from = sourceName(destinationEntity.name, candidate.name)
                else { continue }
                let owner = sourceOwner.relationship(named: from)?.declaredIn
                if owner == relationship.declaredIn, from == relationship.name {
                    found.append(candidate)
                    continue
                }
                if let inverse = relationship.declaration.inverse, owner == relationship.inverseEntity, from == inverse
                {
                    found.append(candidate)
                }
            }
        }
        return found
    }

    /// One warning per many-to-many: from the side first by (entity, name).
    func isFirstSide(_ relationship: CompiledRelationship) -> Bool {
        guard let inverse = relationship.declaration.inverse, let owner = relationship.inverseEntity,
            source.entity(named: owner)?.relationship(named: inverse)?.declaration.isToMany == true
        else { return true }
        return (relationship.declaredIn, relationship.name) <= (owner, inverse)
    }

    /// The stored positions of an ordered to-many (`RowCounter.notCounted` when
    /// some exist in a table too large to count).
    func orderedRows(_ pairs: PairSource) throws -> Int64 {
        switch pairs {
        case .join(let table, _, _, _):
            return try count(table, nil)
        case .reverseColumn(let table, _, let order?):
            guard
                let entities = sourceLayout.table(named: table).map({ t in
                    source.entities.filter { $0.root == t.entity }.map(\.name)
                })
            else { return 0 }
            return try countValues(table, order, numbers(sourceLayout, entities))
        case .reverseColumn(_, _, nil), .column, .path:
            // A mapping file's key path stores no positions.
            return 0
        }
    }
}
