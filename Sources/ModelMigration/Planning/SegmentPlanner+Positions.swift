import DataModel
import Mapping
import SQLiteStore

/// Where a copied row goes in the ordered to-many relationships it is a member of.
extension SegmentPlanner {
    /// The position of a copied row that is a destination of `owner.name` (an ordered
    /// to-many), or `NULL` when it is not one.
    func position(
        in owner: String, _ name: String, entity: CompiledEntity, lineage: Set<String>, sourceEntity: CompiledEntity
    ) -> String {
        // This row is a destination of owner.name (ordered to-many): its position.
        guard let ownerEntity = destination.entity(named: owner),
            let relationship = ownerEntity.relationship(named: name)
        else { return "NULL" }
        let isDestinationRow =
            relationship.declaration.inverse.map { inverse in
                lineage.contains { destination.entity(named: $0)?.relationship(named: inverse) != nil }
            } ?? lineage.contains(relationship.declaration.destination)
        guard isDestinationRow else { return "NULL" }
        let rowTable = sourceLayout.table(forEntity: sourceEntity.root)?.name
        // Newly ordered from an unordered one-to-many whose pairs this row's table
        // keeps: the column holding the row's owner in it.
        var unorderedOwnColumn: String?
        if let found = pairs(for: ownerEntity, relationship), !found.reversed {
            switch found.source {
            case .reverseColumn(let table, let column, let order?) where table == rowTable:
                // A further mapping's row whose owner comes from another to-one (a
                // sibling's own relationship) joins the list only through its inverse.
                if copyingFurther != nil, let own = ownOwnerColumn(entity, relationship), own != column {
                    return Self.afterTheList(owner: own)
                }
                return "s.\(SQLText.q(order))"
            case .reverseColumn(_, _, _?):
                // Objects merged in from another table (a further mapping): members only
                // through the inverse, after those the list kept, in key order (the keys
                // they took in their old order, `rekeyMergedObjects`).
                return Self.afterTheList(owner: ownOwnerColumn(entity, relationship))
            case .reverseColumn(let table, let column, nil) where table == rowTable:
                unorderedOwnColumn = column
            case .join(let table, let mine, let theirs, let order?):
                // From an ordered many-to-many: the position under the owner the
                // key column keeps (the lowest, as `destinationOfRow` picks it).
                return """
                    (SELECT j.\(SQLText.q(order)) FROM \(SQLText.q(table)) AS j \
                    WHERE j.\(SQLText.q(theirs)) = s.Z_PK ORDER BY j.\(SQLText.q(mine)) LIMIT 1)
                    """
            default:
                break
            }
        }
        // Moved up from subentities: each member keeps its place in its owner's
        // list, read from where that subentity's list kept it (a member is in one
        // owner's list); newly ordered, the order of primary keys.
        let inherited = subtree(destination, owner).dropFirst().compactMap { name -> String? in
            guard let entity = destination.entity(named: name), let r = entity.relationship(named: relationship.name),
                let found = pairs(for: entity, r), !found.reversed,
                case .reverseColumn(let table, _, let order?) = found.source,
                table == rowTable
            else { return nil }
            return "s.\(SQLText.q(order))"
        }
        if !inherited.isEmpty { return "coalesce(\(Array(Set(inherited)).sorted().joined(separator: ", ")), s.Z_PK)" }
        // Members the list gets only through its inverse (a to-one moved up from a
        // sibling, say) come after those of its own source relationship, each part
        // in primary-key order (the reference's order, Docs/Reference.md "Ordered":
        // Core Data's order of a set is unspecified). 2^62 is above every key.
        if let column = unorderedOwnColumn, !ownerComesFrom(column, entity: entity, list: relationship) {
            return "CASE WHEN s.\(SQLText.q(column)) IS NOT NULL THEN s.Z_PK ELSE s.Z_PK + 4611686018427387904 END"
        }
        return "s.Z_PK"
    }

    /// The column of the copied row's source that holds its owner in `list` (the
    /// list's inverse to-one, as the current mapping copies it), when it is one.
    func ownOwnerColumn(_ entity: CompiledEntity, _ list: CompiledRelationship) -> String? {
        guard let inverse = list.declaration.inverse, let toOne = entity.relationship(named: inverse),
            !toOne.declaration.isToMany,
            let found = pairs(for: entity, toOne), !found.reversed, case .column(_, let column, _) = found.source
        else { return nil }
        return column
    }

    /// The position of a member that joins a list only through its inverse: after the
    /// list's own members (2^62 is above every key), in key order; none outside a list.
    static func afterTheList(owner column: String?) -> String {
        guard let column else { return "s.Z_PK + 4611686018427387904" }
        return "CASE WHEN s.\(SQLText.q(column)) IS NOT NULL THEN s.Z_PK + 4611686018427387904 END"
    }
}
