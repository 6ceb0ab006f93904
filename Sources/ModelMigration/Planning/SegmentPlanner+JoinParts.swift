import DataModel
import Mapping
import SQLiteStore

/// The pairs of a many-to-many's join table when its owners read them from
/// different places. A relationship declared on a parent is a property of every
/// subentity too, and Core Data's inferred mapping pairs it per entity: `CToC`
/// maps the inherited `P.tags` from `C.tags` by name, `DToD` from `D.tags`. So a
/// many-to-many moved up from subentities to their parent takes each subentity's
/// pairs from that subentity's own source relationship, and its parent's objects
/// from the parent's (none, when the parent had no such relationship).
extension SegmentPlanner {
    /// The pairs of one group of owners: where they are stored, and, when the
    /// storage also holds pairs of owners another part reads, the source entity
    /// numbers of the owners this part keeps.
    struct JoinPart: Equatable {
        let found: FoundPairs
        /// The source table of the owners and their entity numbers.
        let owners: (table: String, numbers: [Int])?
        /// The same for the destination objects, when the storage holds pairs with
        /// objects that are no longer of the relationship's destination entity (a
        /// subentity that left the hierarchy).
        var members: (table: String, numbers: [Int])? = nil

        static func == (a: JoinPart, b: JoinPart) -> Bool {
            a.found == b.found && a.owners?.table == b.owners?.table && a.owners?.numbers == b.owners?.numbers
                && a.members?.table == b.members?.table && a.members?.numbers == b.members?.numbers
        }
    }

    /// Where the pairs of the join table of `relationship` (declared on `entity`)
    /// come from, part by part: one unfiltered part when every owner entity reads
    /// the same source and that source holds no other owners' pairs (the common
    /// case), none when nothing holds them. A source holding pairs of owners that
    /// are not this relationship's (a subentity moved out of its hierarchy reads its
    /// old parent's relationship, whose pairs include the parent's own objects) is
    /// filtered to this relationship's owners.
    func joinParts(for entity: CompiledEntity, _ relationship: CompiledRelationship) -> [JoinPart] {
        let own = pairs(for: entity, relationship)
        var groups: [(found: FoundPairs, owners: [String])] = []
        for name in subtree(destination, entity.name) {
            guard let owner = destination.entity(named: name),
                let inherited = owner.relationship(named: relationship.name),
                let sourceOwner = sourceEntity(for: name), isSameObjectMapping(name),
                let found = name == entity.name ? own : pairs(for: owner, inherited)
            else { continue }
            // Objects merged into the owner (further mappings) read the same storage
            // (`refuseSeparateStorage`): their pairs are the part's too.
            let owners = [sourceOwner.name] + sourceEntities(for: name).dropFirst().map(\.name)
            if let index = groups.firstIndex(where: { $0.found == found }) {
                groups[index].owners.append(contentsOf: owners)
            } else {
                groups.append((found, owners))
            }
        }
        guard !groups.isEmpty else {
            return own.map { [JoinPart(found: $0, owners: nil, members: membersFilter(entity, relationship, $0))] }
                ?? []
        }
        return groups.map { group in
            JoinPart(
                found: group.found, owners: ownersFilter(group.found, sourceOwners: group.owners),
                members: membersFilter(entity, relationship, group.found))
        }
    }

    /// The source entity numbers the pairs' destination objects must have, or nil
    /// when every object the storage can point at is migrated as one of the
    /// relationship's destination entity (or its subentities): Core Data's relationship
    /// mapping holds the destination instances of the source targets made by those
    /// entities' mappings, so a target that left the hierarchy leaves the pair out.
    func membersFilter(_ entity: CompiledEntity, _ relationship: CompiledRelationship, _ found: FoundPairs) -> (
        table: String, numbers: [Int]
    )? {
        guard let target = sourceTarget(entity, relationship, found),
            let table = sourceLayout.table(forEntity: target.root)?.name
        else {
            return nil
        }
        let kept = subtree(destination, relationship.declaration.destination).filter(isSameObjectMapping).flatMap {
            sourceEntities(for: $0).map(\.name)
        }
        let reachable = Set(subtree(source, target.name))
        guard !reachable.isSubset(of: Set(kept)) else { return nil }
        return (table, numbers(sourceLayout, kept.filter { source.entity(named: $0)?.root == target.root }))
    }

    /// A mapping whose destination objects keep their source keys: a join row's
    /// owner key is then the same in the source and the destination.
    func isSameObjectMapping(_ destinationEntity: String) -> Bool {
        guard let entityMapping = mapping.mapping(forDestination: destinationEntity), entityMapping.kind != .custom
        else { return false }
        return mapping.mappings(fromSource: entityMapping.source ?? "").count == 1
    }

    /// The source entity numbers a part's owners must have, or nil when its storage
    /// holds only such owners: the storage's relationship is declared on a source
    /// entity whose whole hierarchy below it is among the part's owners (or the
    /// owners lie in several source tables, where no one filter applies).
    func ownersFilter(_ found: FoundPairs, sourceOwners: [String]) -> (table: String, numbers: [Int])? {
        let roots = Set(sourceOwners.compactMap { source.entity(named: $0)?.root })
        guard roots.count == 1, let root = roots.first, let table = sourceLayout.table(forEntity: root)?.name else {
            return nil
        }
        // A key path's pairs (or any storage of no one relationship) start at the
        // mapping's own source objects.
        guard let declarer = storageOwner(found) else { return nil }
        if Set(subtree(source, declarer)).isSubset(of: Set(sourceOwners)) { return nil }
        return (table, numbers(sourceLayout, sourceOwners))
    }

    /// The source entity that declares the relationship whose pairs `found` reads
    /// (in the owner's direction), when it is a single relationship.
    func storageOwner(_ found: FoundPairs) -> String? {
        for entity in source.entities {
            for relationship in entity.relationships where relationship.declaredIn == entity.name {
                guard let pairs = pairSource(entity, relationship.name) else { continue }
                if pairs == found.source, !found.reversed { return entity.name }
                if pairs == found.source, found.reversed, let inverse = relationship.declaration.inverse,
                    relationship.inverseEntity != nil
                {
                    return source.entity(named: relationship.declaration.destination)?
                        .relationship(named: inverse)?.declaredIn
                }
            }
        }
        return nil
    }

    /// `SELECT … AS k1, … AS k2` of one part's pairs, its owners filtered.
    /// The pairs the inverse side reads from sources the table's own side does not
    /// (a to-one moved up from two siblings, then made to-many: each sibling's objects
    /// pair through their own old relationship, while the table's side pairs through
    /// one of them). Setting one side sets the other, so the join table takes the
    /// pairs of both (Docs/Reference.md, "Many-to-many"; fuzzer seed 1700 trial 215,
    /// where the other sibling's pairs were lost). Join tables with an order column
    /// read each side's order from its own pairs and are left as they are.
    func inverseOnlyJoinParts(of entity: CompiledEntity, _ relationship: CompiledRelationship, in table: Table)
        -> [JoinPart]
    {
        guard !table.columns.contains(where: { if case .order = $0.role { true } else { false } }),
            let inverseName = relationship.declaration.inverse, let inverseOwner = relationship.inverseEntity,
            let inverseEntity = destination.entity(named: inverseOwner),
            let inverse = inverseEntity.relationship(named: inverseName)
        else { return [] }
        // Storage the table's side reads already (whatever its filters) is not read again.
        let own = Set(joinParts(for: entity, relationship).map { Self.storage($0.found.source) })
        guard !own.isEmpty else { return [] }
        var added: [JoinPart] = []
        for part in joinParts(for: inverseEntity, inverse) where !own.contains(Self.storage(part.found.source)) {
            let flipped = JoinPart(
                found: FoundPairs(source: part.found.source, reversed: !part.found.reversed), owners: part.members,
                members: part.owners)
            if !added.contains(flipped) { added.append(flipped) }
        }
        return added
    }

    /// Where a pair source's pairs are stored, the same from either side (a to-one
    /// column is one side's `column` and the other's `reverseColumn`).
    static func storage(_ source: PairSource) -> String {
        switch source {
        case .column(let table, let column, _), .reverseColumn(let table, let column, _): "column \(table).\(column)"
        case .join(let table, _, _, _): "join \(table)"
        case .path(let select, _): "path \(select)"
        }
    }

    func partSelect(_ part: JoinPart) -> String {
        let select = pairSelect(part.found.source, reversed: part.found.reversed)
        var conditions: [String] = []
        if let owners = part.owners {
            conditions.append(
                "p.k1 IN (SELECT Z_PK FROM \(SQLText.q(owners.table)) WHERE Z_ENT IN (\(SQLText.list(owners.numbers))))"
            )
        }
        if let members = part.members {
            conditions.append(
                """
                p.k2 IN (SELECT Z_PK FROM \(SQLText.q(members.table)) WHERE Z_ENT IN (\(SQLText.list(members.numbers))))
                """
            )
        }
        guard !conditions.isEmpty else { return select }
        return "SELECT p.k1 AS k1, p.k2 AS k2 FROM (\(select)) AS p WHERE \(conditions.joined(separator: " AND "))"
    }
}
