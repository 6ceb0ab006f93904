import DataModel
import Mapping
import SQLiteStore

/// References to objects that no longer belong to a relationship's destination
/// entity. Core Data's inferred relationship mapping sets a destination
/// relationship to the destination instances of its source targets made by the
/// entity mapping of the relationship's destination entity (or of a subentity);
/// a target that becomes an object of another entity (a subentity moved out of
/// the hierarchy, a destination narrowed to a subentity) or that is not migrated
/// at all (its entity removed) leaves the relationship empty. The pairs go before
/// any table is built, in the source store's terms, so that every later step
/// (rebuild, in-place change, kept table) carries the cleaned storage.
extension SegmentPlanner {
    /// One destination relationship whose source pairs reach objects it can no
    /// longer hold.
    struct LostTargets {
        let entity: CompiledEntity
        let relationship: CompiledRelationship
        let found: FoundPairs
        /// The source entity the pairs' targets belong to (with its subentities).
        let sourceTarget: CompiledEntity
        /// Source entities (within `sourceTarget`'s subtree) whose objects are lost as targets.
        let lost: [String]
    }

    /// Every destination relationship that loses targets, one per relationship as declared.
    func lostTargets() -> [LostTargets] {
        var result: [LostTargets] = []
        let readers = pairReaders()
        for entity in destination.entities {
            for relationship in entity.relationships
            where relationship.declaredIn == entity.name && !relationship.declaration.isTransient {
                guard let entityMapping = mapping.mapping(forDestination: entity.name), entityMapping.kind != .custom
                else { continue }
                for (found, target) in pairStorages(entity, relationship) {
                    if let lost = lostTargets(entity, relationship, found, target, readers: readers) {
                        result.append(lost)
                    }
                }
            }
        }
        return result
    }

    /// Every source storage of a destination relationship's pairs, with the source
    /// entity its targets belong to: the declaring entity's, and those of
    /// subentities that read it from storage of their own (a relationship moved up
    /// from subentities, each of which kept its own column or join table).
    func pairStorages(_ entity: CompiledEntity, _ relationship: CompiledRelationship) -> [(FoundPairs, CompiledEntity)]
    {
        var storages: [(FoundPairs, CompiledEntity)] = []
        if let found = pairs(for: entity, relationship), let target = sourceTarget(entity, relationship, found) {
            storages.append((found, target))
        }
        for name in subtree(destination, entity.name).dropFirst() {
            guard let sub = destination.entity(named: name), mapping.mapping(forDestination: name)?.kind != .custom,
                let reader = sourceEntity(for: name), let from = sourceName(name, relationship.name),
                !readsAsDeclarer(sub, relationship.name, from: from, in: reader),
                let storage = pairSource(reader, from),
                let old = reader.relationship(named: from),
                let target = source.entity(named: old.declaration.destination),
                !storages.contains(where: { Self.storageKey($0.0.source) == Self.storageKey(storage) })
            else { continue }
            storages.append((FoundPairs(source: storage, reversed: false), target))
        }
        return storages
    }

    /// The targets one storage of a relationship's pairs loses, if any.
    private func lostTargets(
        _ entity: CompiledEntity, _ relationship: CompiledRelationship, _ found: FoundPairs, _ target: CompiledEntity,
        readers: [String: Set<String>]
    ) -> LostTargets? {
        if case .path = found.source { return nil }
        // Pairs another destination relationship (not the inverse) also reads stay for it.
        let inverse = relationship.declaration.inverse.map { "\(relationship.inverseEntity ?? "").\($0)" }
        if readers[Self.storageKey(found.source), default: []].contains(where: {
            $0 != "\(entity.name).\(relationship.name)" && $0 != inverse
        }) {
            return nil
        }
        let allowed = Set(subtree(destination, relationship.declaration.destination))
        var lost: [String] = []
        var custom = false
        // An abstract entity has no objects of its own to lose.
        for name in subtree(source, target.name) where source.entity(named: name)?.isAbstract != true {
            let made = mapping.mappings(fromSource: name)
            if made.contains(where: { $0.kind == .custom }) { custom = true }
            if !made.contains(where: { $0.kind != .remove && allowed.contains($0.destination ?? "") }) {
                lost.append(name)
            }
        }
        // Objects a policy makes are re-pointed through its associations.
        guard !custom, !lost.isEmpty else { return nil }
        return LostTargets(entity: entity, relationship: relationship, found: found, sourceTarget: target, lost: lost)
    }

    /// Which destination relationships (`Entity.name`) read each source pair storage.
    func pairReaders() -> [String: Set<String>] {
        var readers: [String: Set<String>] = [:]
        for entity in destination.entities {
            for relationship in entity.relationships
            where relationship.declaredIn == entity.name && !relationship.declaration.isTransient {
                guard let found = pairs(for: entity, relationship) else { continue }
                readers[Self.storageKey(found.source), default: []].insert("\(entity.name).\(relationship.name)")
            }
        }
        return readers
    }

    /// A pair storage's identity: its table and key columns.
    static func storageKey(_ source: PairSource) -> String {
        switch source {
        case .column(let t, let c, _), .reverseColumn(let t, let c, _): "\(t).\(c)"
        case .join(let t, _, _, _): t
        case .path(let select, _): select
        }
    }

    /// The source entity whose objects a destination relationship's found pairs point at.
    func sourceTarget(_ entity: CompiledEntity, _ relationship: CompiledRelationship, _ found: FoundPairs)
        -> CompiledEntity?
    {
        if found.reversed {
            // A to-one column read the other way round holds keys of its own
            // relationship's destination, which may be wider than the inverse's owner
            // (a subentity that inherits the inverse): every object it can point to
            // is a target (fuzzer seed 1002 trial 245: F.o4's keys of A and F objects
            // stayed in A.o4, whose destination is E).
            if case .reverseColumn(let table, let column, _) = found.source,
                let role = sourceLayout.table(named: table)?.columns.first(where: { $0.name == column })?.role,
                case .toOne(let owner, let name) = role,
                let destination = source.entity(named: owner)?.relationship(named: name)?.declaration.destination
            {
                return source.entity(named: destination)
            }
            // The inverse's pairs read the other way round: its owners are the targets.
            return relationship.inverseEntity.flatMap { sourceEntity(for: $0) }
        }
        guard let owner = sourceEntity(for: entity.name), let from = sourceName(entity.name, relationship.name),
            let old = owner.relationship(named: from)
        else { return nil }
        return source.entity(named: old.declaration.destination)
    }

    /// Where lost pairs sit: the table to change, the condition on its rows (alias
    /// `f`), the columns to clear (nil: the rows are join rows, deleted).
    func lostStorage(_ lost: LostTargets) -> (table: String, condition: String, clearing: [String]?)? {
        guard let targetTable = sourceLayout.table(forEntity: lost.sourceTarget.root) else { return nil }
        let numbers = SQLText.list(numbers(sourceLayout, lost.lost))
        let keys = "(SELECT Z_PK FROM \(SQLText.q(targetTable.name)) WHERE Z_ENT IN (\(numbers)))"
        // A key column naming the target. A key on the target's own row is its own
        // to-one: the target's destination entity keeps or drops it (a rebuild warns
        // of it as dropped, in place `clearMovedDownValues` clears it).
        switch (lost.found.source, lost.found.reversed) {
        case (.column(let table, let column, _), false):
            return (table, "f.\(SQLText.q(column)) IN \(keys)", companions(table, column))
        case (.reverseColumn(let table, let column, let order), true):
            return (table, "f.\(SQLText.q(column)) IN \(keys)", [column] + [order].compactMap { $0 })
        case (.join(let table, let mine, let theirs, _), let reversed):
            return (table, "f.\(SQLText.q(reversed ? mine : theirs)) IN \(keys)", nil)
        case (.column, true), (.reverseColumn, false), (.path, _):
            return nil
        }
    }

    /// A source to-one key column with what goes with it: its entity column, and
    /// the position in an ordered inverse.
    func companions(_ tableName: String, _ column: String) -> [String] {
        guard let table = sourceLayout.table(named: tableName),
            let key = table.columns.first(where: { $0.name == column }),
            case .toOne(let owner, let name) = key.role
        else { return [column] }
        var names = [column]
        if let entityColumn = table.column(for: .toOneEntity(entity: owner, relationship: name)) {
            names.append(entityColumn.name)
        }
        if let r = source.entity(named: owner)?.relationship(named: name), let inverseOwner = r.inverseEntity,
            let inverse = r.declaration.inverse,
            let order = table.column(for: .order(entity: inverseOwner, relationship: inverse))
        {
            names.append(order.name)
        }
        return names
    }

    /// Removes every reference to a lost target before the tables are built, with a
    /// destructive warning counting them; a required to-one that would lose its
    /// destination is a requirement of the hop (refused at plan, exit 4).
    mutating func clearLostTargets() throws {
        for lost in lostTargets() {
            guard let (table, condition, clearing) = lostStorage(lost) else { continue }
            let label = "\(lost.entity.name).\(lost.relationship.name)"
            let lostNames = lost.lost.joined(separator: ", ")
            let counted = try countWhere(table, condition, [])
            // Removed entities are not migrated at all; others become objects of another entity.
            let notMigrated = lost.lost.allSatisfy { name in
                !mapping.mappings(fromSource: name).contains { $0.kind != .remove }
            }
            let asTarget = " as \(lost.relationship.declaration.destination) objects"
            if counted != 0 {
                let what = clearing == nil ? "pair" : "reference"
                let amount = counted.map { "\($0) \(what)\($0 == 1 ? "" : "s")" } ?? "\(what)s (not counted here)"
                warnings.append(
                    MigrationWarning(
                        message: """
                            \(label): \(amount) to \(lostNames) objects, which are not \
                            migrated\(notMigrated ? "" : asTarget), will be removed
                            """, isDestructive: true, subject: label, count: counted))
            }
            let q = SQLText.q(table)
            if let clearing {
                let sets = clearing.map { "\(SQLText.q($0)) = NULL" }.joined(separator: ", ")
                steps.append(
                    .updateRows(
                        .init(
                            summary:
                                """
                                clear \(label)'s references to \(lostNames) objects (no longer \
                                \(lost.relationship.declaration.destination) objects)
                                """,
                            sql: ["UPDATE \(q) AS f SET \(sets) WHERE \(condition)"],
                            cost: .update(rows: (try? count(table, nil)) ?? 0), table: table)))
            } else {
                steps.append(
                    .deleteRows(
                        .init(
                            summary:
                                """
                                delete \(label)'s pairs with \(lostNames) objects (no longer \
                                \(lost.relationship.declaration.destination) objects)
                                """,
                            sql: ["DELETE FROM \(q) AS f WHERE \(condition)"],
                            cost: .update(rows: (try? count(table, nil)) ?? 0), table: table)))
            }
            addLostRequirement(lost, table: table, condition: condition, clearing: clearing != nil)
            // Members removed from either side: every to-many into the owner's or the
            // destination's table must still hold its minCount after the hop.
            let ends = [lost.entity.root, destination.entity(named: lost.relationship.declaration.destination)?.root]
            for root in ends.compactMap({ $0 }) {
                guard let endTable = destinationLayout.table(forEntity: root) else { continue }
                for check in checkBuilder.memberCountChecks(into: endTable.name) where !checks.contains(check) {
                    checks.append(check)
                }
            }
        }
    }

    /// A required to-one whose stored destination is lost: validation refuses the hop.
    mutating func addLostRequirement(_ lost: LostTargets, table: String, condition: String, clearing: Bool) {
        let r = lost.relationship.declaration
        // The cleared rows are the relationship's owners (a key naming the target).
        guard clearing, !r.isToMany, !r.isOptional, let owner = sourceEntity(for: lost.entity.name) else { return }
        let file = "Migrations/\(destination.model)/\(source.version)-to-\(destination.version).yaml"
        let filter = "\(migratedScope(lost.entity.name, from: owner, in: table, prefix: "f.")) AND \(condition)"
        requirements.append(
            MigrationCheck(
                summary: """
                    \(lost.entity.name).\(lost.relationship.name) is required, and stored \(owner.name) objects point \
                    to \(lost.lost.joined(separator: ", ")) objects, which are not migrated as \(r.destination) objects
                    """,
                sql: "SELECT count(*) FROM \(SQLText.q(table)) AS f WHERE \(filter)",
                rowsSQL:
                    "SELECT 'Z_PK ' || f.Z_PK FROM \(SQLText.q(table)) AS f WHERE \(filter) ORDER BY f.Z_PK LIMIT 5",
                remedy: """
                    make it optional in this version, point those objects elsewhere first, \
                    or write \(file) with a policy for \(lost.entity.name)
                    """))
    }
}
