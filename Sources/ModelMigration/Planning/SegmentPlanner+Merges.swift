import DataModel
import Mapping
import SQLiteStore

/// Two entity mappings into one destination entity (a merge, a mapping file's
/// further mapping with `destination:`): each makes destination objects of its own
/// source objects, as Core Data's migration manager runs every entity mapping of a
/// mapping model in turn. Set-based, that is one `INSERT … SELECT` per mapping into
/// the rebuilt table. Objects keep their keys; those merged in from another source
/// table (WordPress-iOS's `ReaderComment` into `Comment`) first take new keys there,
/// above every key of the tables involved, and every reference to them in the
/// source store follows (`rekeyMergedObjects`), so that the copies then carry keys
/// as they are and a reference to a merged object needs no translation. Entity
/// columns are set from the destination rows (`entityTypeSteps`).
extension SegmentPlanner {
    /// True when a further mapping feeds one of `table`'s entities: the table is then
    /// built anew. Refused (exit 4) when a merge involves a policy, or merges from
    /// another table the objects of an entity with subentities.
    func furtherMappingsFeeding(_ table: Table) throws -> Bool {
        let hierarchy = destination.entities.filter { $0.root == table.entity }
        let merged = hierarchy.filter { mapping.mappings(forDestination: $0.name).count > 1 }
        guard !merged.isEmpty else { return false }
        let keeper = keeperTable(of: table)
        for entity in merged {
            let all = mapping.mappings(forDestination: entity.name)
            if let custom = all.first(where: { $0.kind == .custom }) {
                throw PlanningError(
                    .noPath,
                    """
                    \(entity.name): entity mapping \(custom.name) makes its objects in policy \(custom.policy ?? "?"), \
                    and \(all.map(\.name).filter { $0 != custom.name }.joined(separator: " and ")) merges objects into \
                    it: a merge runs set-based, so no mapping into a merged entity may have a policy's stages
                    """)
            }
            for further in all.dropFirst() {
                if let sourceName = further.source, mapping.mappings(fromSource: sourceName).count > 1 {
                    let others = mapping.mappings(fromSource: sourceName).filter { $0.name != further.name }.map(\.name)
                    throw PlanningError(
                        .noPath,
                        """
                        \(entity.name): entity mapping \(further.name) merges \(sourceName) objects that \
                        \(others.joined(separator: " and ")) also make\(others.count == 1 ? "s" : "") objects of: \
                        a merge takes a source entity no other mapping reads
                        """)
                }
                guard let sourceName = further.source, let sourceEntity = source.entity(named: sourceName),
                    let from = sourceLayout.table(forEntity: sourceEntity.root)?.name, from != keeper,
                    !sourceEntity.subentities.isEmpty
                else { continue }
                throw PlanningError(
                    .noPath,
                    """
                    \(entity.name): entity mapping \(further.name) merges \(sourceName) objects from \(from) into \
                    \(table.name), and \(sourceName) has subentities \
                    (\(sourceEntity.subentities.sorted().joined(separator: ", "))): objects merged from another table \
                    take new keys, which this toolkit gives an entity without subentities only
                    """)
            }
        }
        return true
    }

    /// The source table the objects of `table`'s hierarchy keep their keys from: that
    /// of the first entity's own mapping that has a source.
    func keeperTable(of table: Table) -> String? {
        destination.entities.filter { $0.root == table.entity }.lazy.compactMap { sourceEntity(for: $0.name) }
            .compactMap { sourceLayout.table(forEntity: $0.root)?.name }.first
    }

    /// The further mappings whose source objects live in another table than the one
    /// their destination table keeps keys from, with that table.
    func mergesFromOtherTables() -> [(mapping: EntityMapping, from: Table, into: Table)] {
        var result: [(mapping: EntityMapping, from: Table, into: Table)] = []
        for further in mapping.furtherMappings {
            guard let name = further.destination, let entity = destination.entity(named: name),
                let into = destinationLayout.table(forEntity: entity.root), let sourceName = further.source,
                let sourceEntity = source.entity(named: sourceName),
                let from = sourceLayout.table(forEntity: sourceEntity.root),
                let keeper = keeperTable(of: into), from.name != keeper
            else { continue }
            result.append((further, from, into))
        }
        return result
    }

    /// Objects merged in from another table take new keys in the source store first:
    /// above every key of the tables the merge reads and every key counter of their
    /// entities, in the order of their old keys. Every reference to them follows: the
    /// to-one keys into their table, the owner keys of to-manys stored on their rows'
    /// targets, the join rows. Run first in the hop, inside its transaction.
    mutating func rekeyMergedObjects() throws {
        for (index, merge) in mergesFromOtherTables().enumerated() {
            guard let sourceName = merge.mapping.source, let number = sourceLayout.entityNumbers[sourceName],
                let keeper = keeperTable(of: merge.into)
            else { continue }
            let map = "mm_rekey_\(index)"
            // Above the keys of every table merged into the same one, so that objects
            // from two other tables never meet on a key.
            let involved = Set(
                [keeper] + mergesFromOtherTables().filter { $0.into.name == merge.into.name }.map(\.from.name)
            ).sorted()
            let tables = involved.map { "SELECT max(Z_PK) AS k FROM \(SQLText.q($0))" }
            let roots = numbers(
                sourceLayout,
                source.entities.filter { involved.contains(sourceLayout.table(forEntity: $0.root)?.name ?? "") }.map(
                    \.name))
            let base = """
                (SELECT coalesce(max(k), 0) FROM (\(tables.joined(separator: " UNION ALL ")) \
                UNION ALL SELECT max(Z_MAX) AS k FROM Z_PRIMARYKEY WHERE Z_ENT IN (\(SQLText.list(roots)))))
                """
            var sql = [
                "CREATE TEMP TABLE \(map) (old INTEGER PRIMARY KEY, new INTEGER NOT NULL)",
                """
                INSERT INTO \(map) (old, new) SELECT Z_PK, \(base) + row_number() OVER (ORDER BY Z_PK) \
                FROM \(SQLText.q(merge.from.name)) WHERE Z_ENT = \(number)
                """,
                """
                UPDATE \(SQLText.q(merge.from.name)) SET Z_PK = (SELECT new FROM \(map) WHERE old = Z_PK) WHERE Z_ENT \
                = \(number)
                """,
            ]
            for table in sourceLayout.tables {
                for column in table.columns where pointsInto(column, of: table, merge.from.name, containing: sourceName)
                {
                    let c = SQLText.q(column.name), t = SQLText.q(table.name)
                    sql.append(
                        """
                        UPDATE \(t) SET \(c) = (SELECT new FROM \(map) WHERE old = \(t).\(c)) WHERE \(c) IN (SELECT \
                        old FROM \(map))
                        """
                    )
                }
            }
            sql.append("DROP TABLE \(map)")
            steps.append(
                .updateRows(
                    .init(
                        summary: """
                            give the \(sourceName) objects entity mapping \(merge.mapping.name) merges into \
                            \(merge.into.name) new keys in \(merge.from.name), above every key of \(keeper), and \
                            follow them in every reference
                            """,
                        sql: sql, cost: .update(rows: try count(merge.from.name, [number])), table: merge.from.name)))
        }
    }

    /// Whether a source column holds keys of rows of `tableName` that may be objects of
    /// `entity`: a to-one into its hierarchy, the owner key of a to-many of it stored
    /// on its targets' rows, a join table's side.
    private func pointsInto(_ column: Column, of table: Table, _ tableName: String, containing entity: String) -> Bool {
        let target: String?
        switch column.role {
        case .toOne(let owner, let name):
            target = source.entity(named: owner)?.relationship(named: name)?.declaration.destination
        case .toManyKey(let owner, _): target = owner
        case .joinKey(let name, _): target = name
        default: target = nil
        }
        guard let target, let targetEntity = source.entity(named: target),
            sourceLayout.table(forEntity: targetEntity.root)?.name == tableName
        else { return false }
        return source.lineage(of: entity).contains(target)
    }

    /// The copies of the further mappings into `entity`, after its own mapping's:
    /// each with its mapping put first for the time of its copy, so that every value
    /// and relationship of the copy reads that mapping's source entity.
    mutating func copyFurtherRows(
        of entity: CompiledEntity, into table: Table, as buildName: String, copy: inout HierarchyCopy
    ) throws {
        let all = mapping.mappings(forDestination: entity.name)
        guard all.count > 1 else { return }
        let own = mapping
        defer { mapping = own }
        for further in all.dropFirst() {
            let substituted = own.puttingFirst(further)
            try refuseSeparateStorage(further, of: entity, beside: own, substituted: substituted)
            mapping = substituted
            copyingFurther = further.name
            defer { copyingFurther = nil }
            // From another table (rekeyed first): the copy adds its rows, but the hierarchy's
            // table stays the keeper's, and no count of it stands for these rows.
            let (keptTable, keptNumbers) = (copy.sourceTableName, copy.copiedNumbers)
            try copyRows(of: entity, into: table, as: buildName, copy: &copy)
            if let keptTable, copy.sourceTableName != keptTable {
                (copy.sourceTableName, copy.copiedNumbers) = (keptTable, keptNumbers)
                copy.otherTableCopies += 1
            }
            mapping = own
        }
    }

    /// The source relationship a destination relationship is copied from, as declared
    /// (`Entity.name` of its declaring entity), under this planner's mapping.
    func declaration(of entity: CompiledEntity, _ relationship: CompiledRelationship) -> String? {
        guard let sourceEntity = sourceEntity(for: entity.name), let from = sourceName(entity.name, relationship.name),
            let old = sourceEntity.relationship(named: from)
        else { return nil }
        return "\(old.declaredIn).\(from)"
    }

    /// A merge carries one storage per relationship: the to-one keys on the entity's
    /// own rows are copied row by row, but a to-many's or a many-to-many's pairs are
    /// read from where the entity's own mapping reads them. That is right when the
    /// further mapping reads the same storage (a relationship both sources inherit from
    /// one parent), or reads none and its source's objects have no pairs there (the
    /// entity's own relationship, which the source never had). Refused, naming the
    /// relationship, when the further source keeps its pairs elsewhere (they would be
    /// lost) or has pairs in that storage the mapping leaves out (they would be kept).
    private func refuseSeparateStorage(
        _ further: EntityMapping, of entity: CompiledEntity, beside own: MappingModel, substituted: MappingModel
    ) throws {
        var ownPlanner = self
        ownPlanner.mapping = own
        var furtherPlanner = self
        furtherPlanner.mapping = substituted
        guard let furtherSource = further.source.flatMap({ source.entity(named: $0) }) else { return }
        let furtherStorages = Set(
            furtherSource.relationships.compactMap { pairSource(furtherSource, $0.name).map { Self.storageKey($0) } })
        for relationship in entity.relationships where !relationship.declaration.isTransient {
            let r = relationship.declaration
            let ownPairs = ownPlanner.pairs(for: entity, relationship)
            let furtherPairs = furtherPlanner.pairs(for: entity, relationship)
            let mine = ownPairs.map { Self.storageKey($0.source) }
            let theirs = furtherPairs.map { Self.storageKey($0.source) }
            // A to-one stored on the entity's rows: each copy writes its own rows' keys,
            // and a to-many inverse reads them. A to-one inverse (a one-to-one) keeps its
            // own column, filled from the entity's own source: only one storage keeps
            // both sides one-to-one (two owners on one target otherwise).
            let inverseIsToOne =
                relationship.inverseEntity.flatMap { destination.entity(named: $0) }
                .flatMap { owner in r.inverse.flatMap { owner.relationship(named: $0) } }.map {
                    !$0.declaration.isToMany
                } ?? false
            if !r.isToMany,
                destinationLayout.table(forEntity: entity.root)?.column(
                    for: .toOne(entity: relationship.declaredIn, relationship: relationship.name)) != nil
            {
                // Sibling relationships of one name may share a column: one relationship is
                // one declaration.
                let (own, other) = (
                    ownPlanner.declaration(of: entity, relationship),
                    furtherPlanner.declaration(of: entity, relationship)
                )
                if !inverseIsToOne || own == other { continue }
                throw PlanningError(
                    .noPath,
                    """
                    \(entity.name).\(relationship.name): entity mapping \(further.name) copies it from \
                    \(other ?? "nothing"), \(entity.name)'s own mapping from \(own ?? "nothing"), and its inverse \
                    \(r.inverse ?? "") is a to-one: a merge carries a one-to-one only where both sources inherit it \
                    from one parent (two objects could otherwise point at one)
                    """)
            }
            // A to-many of the entity into itself whose inverse is a to-one on its rows
            // (replies ↔ replyTo): each copy writes its own rows' owner keys, the pairs.
            if r.isToMany, r.destination == entity.name, relationship.inverseEntity == entity.name,
                let inverse = r.inverse.flatMap({ entity.relationship(named: $0) }), !inverse.declaration.isToMany,
                destinationLayout.table(forEntity: entity.root)?.column(
                    for: .toOne(entity: inverse.declaredIn, relationship: inverse.name)) != nil
            {
                continue
            }
            // An ordered to-many read the other way round loses this side's order, where the
            // further source has pairs in that storage.
            let furtherHasPairs = mine.map { furtherStorages.contains($0) } ?? false
            if mine == theirs, !(r.isOrdered && ownPairs?.reversed != furtherPairs?.reversed && furtherHasPairs) {
                continue
            }
            if theirs == nil, !furtherHasPairs { continue }
            throw PlanningError(
                .noPath,
                """
                \(entity.name).\(relationship.name): entity mapping \(further.name) reads it from \
                \(theirs ?? "nothing (left empty)"), \
                \(own.mapping(forDestination: entity.name)?.name ?? entity.name) from \
                \(mine ?? "nothing (left empty)")\
                \(mine == theirs ? " the other way round (its order would be lost)" : ""); \
                a merge carries a to-many relationship, or a one-to-one, only where both sources inherit it from one \
                parent (one storage, read one way)
                """)
        }
    }
}

extension MappingModel {
    /// The mapping model with `further` in the place of its entity's own mapping (and
    /// that one in its place): what one further mapping's copy, and its checks, read.
    func puttingFirst(_ further: EntityMapping) -> MappingModel {
        var model = self
        guard let name = further.destination,
            let first = model.entityMappings.firstIndex(where: { $0.destination == name }),
            let index = model.entityMappings.firstIndex(where: { $0.name == further.name })
        else { return model }
        model.entityMappings.swapAt(first, index)
        return model
    }
}
