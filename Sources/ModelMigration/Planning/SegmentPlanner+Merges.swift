import DataModel
import Mapping
import SQLiteStore

/// Two entity mappings into one destination entity (a merge, a mapping file's
/// further mapping with `destination:`): each makes destination objects of its own
/// source objects, as Core Data's migration manager runs every entity mapping of a
/// mapping model in turn. Set-based, that is one `INSERT … SELECT` per mapping into
/// the rebuilt table. The objects keep their keys, so every source entity of the
/// merge must be stored in one source table (keys are unique there); a reference to
/// a merged object then needs no translation, and its entity column is set from the
/// destination rows (`entityTypeSteps`).
extension SegmentPlanner {
    /// True when a further mapping feeds one of `table`'s entities: the table is then
    /// built anew. Refused (exit 4) when the merge reads several source tables or
    /// involves a policy.
    func furtherMappingsFeeding(_ table: Table, sourceTables: Set<String>) throws -> Bool {
        let hierarchy = destination.entities.filter { $0.root == table.entity }
        let merged = hierarchy.filter { mapping.mappings(forDestination: $0.name).count > 1 }
        guard let first = merged.first else { return false }
        let names = mapping.mappings(forDestination: first.name).map(\.name).joined(separator: " and ")
        if sourceTables.count > 1 {
            throw PlanningError(
                .noPath,
                """
                \(first.name): the entity mappings \(names) read objects stored in \
                \(sourceTables.sorted().joined(separator: " and ")); a merge keeps each object's key, so its sources \
                must share one table (entities of one hierarchy)
                """)
        }
        for entity in merged {
            let all = mapping.mappings(forDestination: entity.name)
            if let custom = all.first(where: { $0.kind == .custom }) {
                throw PlanningError(
                    .noPath,
                    """
                    \(entity.name): entity mapping \(custom.name) makes its objects in policy \(custom.policy ?? "?"), \
                    and \(all.map(\.name).filter { $0 != custom.name }.joined(separator: " and ")) merges objects into it: \
                    a merge runs set-based, so no mapping into a merged entity may have a policy's stages
                    """)
            }
        }
        return true
    }

    /// The copies of the further mappings into `entity`, after its own mapping's:
    /// each with its mapping put first for the time of its copy, so that every value
    /// and relationship of the copy reads that mapping's source entity.
    mutating func copyFurtherRows(of entity: CompiledEntity, into table: Table, as buildName: String, copy: inout HierarchyCopy) throws {
        let all = mapping.mappings(forDestination: entity.name)
        guard all.count > 1 else { return }
        let own = mapping
        defer { mapping = own }
        for further in all.dropFirst() {
            var substituted = own
            let first = substituted.entityMappings.firstIndex { $0.name == all[0].name }!
            let index = substituted.entityMappings.firstIndex { $0.name == further.name }!
            substituted.entityMappings.swapAt(first, index)
            try refuseSeparateStorage(further, of: entity, beside: own, substituted: substituted)
            mapping = substituted
            try copyRows(of: entity, into: table, as: buildName, copy: &copy)
            mapping = own
        }
    }

    /// A merge carries one storage per relationship: the to-one keys on the entity's
    /// own rows are copied row by row, but a to-many's or a many-to-many's pairs are
    /// read from where the entity's own mapping reads them. That is right when the
    /// further mapping reads the same storage (a relationship both sources inherit from
    /// one parent), or reads none and its source's objects have no pairs there (the
    /// entity's own relationship, which the source never had). Refused, naming the
    /// relationship, when the further source keeps its pairs elsewhere (they would be
    /// lost) or has pairs in that storage the mapping leaves out (they would be kept).
    private func refuseSeparateStorage(_ further: EntityMapping, of entity: CompiledEntity, beside own: MappingModel, substituted: MappingModel) throws {
        var ownPlanner = self
        ownPlanner.mapping = own
        var furtherPlanner = self
        furtherPlanner.mapping = substituted
        guard let furtherSource = further.source.flatMap({ source.entity(named: $0) }) else { return }
        let furtherStorages = Set(furtherSource.relationships.compactMap { pairSource(furtherSource, $0.name).map { Self.storageKey($0) } })
        for relationship in entity.relationships where !relationship.declaration.isTransient {
            let r = relationship.declaration
            // A to-one stored on the entity's rows: each copy writes its own rows' keys.
            if !r.isToMany,
                destinationLayout.table(forEntity: entity.root)?.column(for: .toOne(entity: relationship.declaredIn, relationship: relationship.name)) != nil
            {
                continue
            }
            let mine = ownPlanner.pairs(for: entity, relationship).map { Self.storageKey($0.source) }
            let theirs = furtherPlanner.pairs(for: entity, relationship).map { Self.storageKey($0.source) }
            if mine == theirs { continue }
            if theirs == nil, mine.map({ !furtherStorages.contains($0) }) ?? true { continue }
            throw PlanningError(
                .noPath,
                """
                \(entity.name).\(relationship.name): entity mapping \(further.name) reads it from \
                \(theirs ?? "nothing (left empty)"), \(own.mapping(forDestination: entity.name)?.name ?? entity.name) from \
                \(mine ?? "nothing (left empty)"); a merge carries a to-many relationship only where both sources \
                inherit it from one parent (one storage)
                """)
        }
    }
}
