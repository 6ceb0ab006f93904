import DataModel
import Mapping
import SQLiteStore

/// Why a plan cannot be made (beyond inference refusals).
public struct PlanningError: Error, Sendable, CustomStringConvertible {
    /// What is wrong.
    public var message: String
    /// True when there is no migration path (exit 4), false for a failure (exit 1).
    public var isNoPath: Bool

    public var description: String { message }
}

/// Turns one segment's mapping into SQL steps over the store's layouts:
/// `ALTER TABLE` where SQLite can change a table without touching its rows, the
/// 12-step rebuild (https://www.sqlite.org/lang_altertable.html#otheralter) with a
/// set-based `INSERT … SELECT` where it cannot.
struct SegmentPlanner {
    let source: CompiledVersion
    let sourceLayout: StorageLayout
    let destination: CompiledVersion
    let destinationLayout: StorageLayout
    let mapping: MappingModel
    /// Counts rows: (table, entity numbers or nil for all).
    let count: (String, [Int]?) throws -> Int64
    /// Counts non-null values of a column among entity numbers.
    let countValues: (String, String, [Int]) throws -> Int64

    var steps: [MigrationStep] = []
    var checks: [MigrationCheck] = []
    /// What the stored data must satisfy (`SegmentPlanner+Requirements`).
    var requirements: [MigrationCheck] = []
    /// Tables altered in place with renamed columns: their indexes are rebuilt.
    var columnsRenamed: Set<String> = []
    /// Source tables moved under a temporary name before a swap of table names.
    var temporaryTableNames: [String: String] = [:]
    /// The entity numbers `Z_PRIMARYKEY` has rows for before this hop (nil: all).
    var storedKeyNumbers: Set<Int>?
    var warnings: [MigrationWarning] = []

    typealias Column = StorageLayout.Column
    typealias Table = StorageLayout.Table

    // MARK: Lookups

    func sourceEntity(for destinationEntity: String) -> CompiledEntity? {
        mapping.mapping(forDestination: destinationEntity)?.source.flatMap { source.entity(named: $0) }
    }

    func numbers(_ layout: StorageLayout, _ names: [String]) -> [Int] { names.compactMap { layout.entityNumbers[$0] }.sorted() }

    func subtree(_ version: CompiledVersion, _ name: String) -> [String] { version.subtree(of: name) }

    /// The source column holding a property of a source entity.
    func sourceColumn(_ entity: CompiledEntity, _ property: String) -> Column? {
        let table = sourceLayout.table(forEntity: entity.root)
        if let a = entity.attribute(named: property) { return table?.column(for: .attribute(entity: a.declaredIn, property: property)) }
        if let r = entity.relationship(named: property) { return table?.column(for: .toOne(entity: r.declaredIn, relationship: property)) }
        return nil
    }

    /// Where the pairs (object, destination object) of a source relationship are stored.
    enum PairSource: Equatable {
        /// A column on the object's row.
        case column(table: String, column: String, numbers: [Int])
        /// A column on the destination's row pointing back.
        case reverseColumn(table: String, column: String, order: String?)
        /// A join table: the object's column, the destination's column, the order column.
        case join(table: String, mine: String, theirs: String, order: String?)
    }

    func pairSource(_ entity: CompiledEntity, _ name: String) -> PairSource? {
        guard let relationship = entity.relationship(named: name), !relationship.declaration.isTransient else { return nil }
        let r = relationship.declaration
        if !r.isToMany {
            guard let column = sourceColumn(entity, name), let table = sourceLayout.table(forEntity: entity.root) else { return nil }
            return .column(table: table.name, column: column.name, numbers: numbers(sourceLayout, subtree(source, entity.name)))
        }
        if let destination = source.entity(named: r.destination),
           let (table, column, order) = sourceLayout.reverseColumn(for: relationship, destinationRoot: destination.root) {
            return .reverseColumn(table: table.name, column: column, order: order)
        }
        guard let (table, mine, theirs) = sourceLayout.joinTable(for: relationship) else { return nil }
        return .join(table: table.name, mine: mine, theirs: theirs,
                     order: table.column(for: .order(entity: relationship.declaredIn, relationship: name))?.name)
    }

    /// The source of the pairs of a destination relationship: its own mapping, or
    /// its inverse's reversed (when only the inverse existed before).
    func pairs(for entity: CompiledEntity, _ relationship: CompiledRelationship) -> (PairSource, reversed: Bool)? {
        if let sourceEntity = sourceEntity(for: entity.name), let from = sourceName(entity.name, relationship.name),
           let pairs = pairSource(sourceEntity, from) {
            return (pairs, false)
        }
        if let inverse = relationship.declaration.inverse, let owner = relationship.inverseEntity,
           let ownerSource = sourceEntity(for: owner), let from = sourceName(owner, inverse), let pairs = pairSource(ownerSource, from) {
            return (pairs, true)
        }
        return nil
    }

    /// The source property a destination property is copied from.
    func sourceName(_ entity: String, _ property: String) -> String? {
        switch mapping.mapping(forDestination: entity)?.property(property)?.source {
        case .copy(let from)?, .convert(let from, _)?: from
        default: nil
        }
    }

    // MARK: Planning

    mutating func plan() throws {
        var rebuilt: Set<String> = []
        var newTables: [(Table, String)] = []   // (destination table, build name)
        var fastPath: [Table] = []

        // Which source tables feed each destination entity table.
        for table in destinationLayout.tables where table.joinRelationship == nil {
            let hierarchy = destination.entities.filter { $0.root == table.entity }
            let sourceTables = Set(hierarchy.compactMap { sourceEntity(for: $0.name) }.compactMap { sourceLayout.table(forEntity: $0.root)?.name })
            if sourceTables.count > 1 {
                throw PlanningError(message: "table \(table.name) would receive rows of \(sourceTables.sorted().joined(separator: " and ")); merging hierarchies is not supported", isNoPath: true)
            }
            if sourceTables.isEmpty {
                let clash = sourceLayout.table(named: table.name) != nil
                if clash { rebuilt.insert(table.name) }
                newTables.append((table, clash ? "MM_NEW_" + table.name : table.name))
            } else if try canAlter(table, from: sourceLayout.table(named: sourceTables.first!)!) {
                fastPath.append(table)
            } else {
                rebuilt.insert(table.name)
                newTables.append((table, "MM_NEW_" + table.name))
            }
        }

        // Join tables: kept when identical, otherwise built anew.
        var keptJoins: Set<String> = []
        var newJoins: [(Table, String, (PairSource, Bool)?)] = []
        for table in destinationLayout.tables where table.joinRelationship != nil {
            let parts = table.joinRelationship!.split(separator: ".").map(String.init)
            guard let entity = destination.entity(named: parts[0]), let relationship = entity.relationship(named: parts[1]) else { continue }
            let found = pairs(for: entity, relationship)
            if case .join(let name, let mine, let theirs, let order)? = found?.0, found?.1 == false, name == table.name,
               let old = sourceLayout.table(named: name), old.columns.map(\.name) == table.columns.map(\.name),
               mine == table.columns[0].name, theirs == table.columns[1].name,
               order == table.column(for: .order(entity: relationship.declaredIn, relationship: relationship.name))?.name {
                keptJoins.insert(name)
                continue
            }
            let exists = sourceLayout.table(named: table.name) != nil
            newJoins.append((table, exists ? "MM_NEW_" + table.name : table.name, found))
        }

        // To-many relationships without an inverse keep one owner per destination
        // row (Core Data's storage): pairs that shared a destination lose all but one.
        for entity in destination.entities {
            for relationship in entity.relationships where relationship.declaredIn == entity.name {
                let r = relationship.declaration
                guard r.isToMany, r.inverse == nil, !r.isTransient, let found = pairs(for: entity, relationship) else { continue }
                let shared: Bool = switch found.0 {
                case .column, .join: true
                case .reverseColumn: false
                }
                if shared {
                    warnings.append(MigrationWarning(message: "\(entity.name).\(r.name) has no inverse: each \(r.destination) row keeps the key of one \(entity.name) (as Core Data stores it); a \(r.destination) shared by several keeps the one with the lowest primary key", isDestructive: true))
                }
            }
        }

        // Binary data no longer allowing external storage: what Core Data kept in
        // external files stays a reference (the files are not read into the store).
        for entity in destination.entities {
            for attribute in entity.attributes where attribute.declaredIn == entity.name && attribute.declaration.type == .binary
                && !attribute.declaration.allowsExternalStorage {
                guard let sourceEntity = sourceEntity(for: entity.name), let from = sourceName(entity.name, attribute.name),
                      sourceEntity.attribute(named: from)?.declaration.allowsExternalStorage == true else { continue }
                warnings.append(MigrationWarning(message: "\(entity.name).\(attribute.name) no longer allows external storage: values Core Data kept in files beside the store stay references to those files", isDestructive: true))
            }
        }

        // 1. Build every new table from the old ones (nothing is dropped yet).
        for (table, buildName) in newTables {
            try build(table, as: buildName)
        }
        for (table, buildName, found) in newJoins {
            try buildJoin(table, as: buildName, pairs: found)
        }

        // 1b. Policies: after every new table exists, while the old ones still do;
        // one step for the hop, so that its stages span every custom mapping.
        let buildTables = Dictionary(newTables.map { ($0.0.name, $0.1) } + newJoins.map { ($0.0.name, $0.1) }, uniquingKeysWith: { a, _ in a })
        let order = mapping.fileOrder ?? []
        let custom = mapping.entityMappings.filter { $0.kind == .custom }.enumerated().sorted { a, b in
            let x = order.firstIndex(of: a.element.destination ?? "") ?? Int.max, y = order.firstIndex(of: b.element.destination ?? "") ?? Int.max
            return x != y ? x < y : a.offset < b.offset
        }.map(\.element)
        var invocations: [PolicyInvocation] = []
        var policyRows: Int64 = 0
        for entityMapping in custom {
            guard let policy = entityMapping.policy, let sourceName = entityMapping.source, let destinationName = entityMapping.destination,
                  let sourceEntity = source.entity(named: sourceName), let table = sourceLayout.table(forEntity: sourceEntity.root),
                  let number = sourceLayout.entityNumbers[sourceName] else { continue }
            policyRows = policyRows.adding(saturating: try count(table.name, [number]))
            invocations.append(PolicyInvocation(policy: policy, mappingName: entityMapping.name, sourceEntity: sourceName,
                                                destinationEntity: destinationName, buildTables: buildTables))
            try warnDropped(entityMapping, sourceEntity: sourceEntity, numbers: [number], policy: true)
        }
        if !invocations.isEmpty {
            let names = invocations.map { "\($0.policy): \($0.sourceEntity) → \($0.destinationEntity)" }.joined(separator: "; ")
            steps.append(MigrationStep(kind: .policy, summary: invocations.count == 1 ? "policy \(names)" : "policies \(names) (stage by stage)",
                                       sql: [], cost: .policy(rows: policyRows),
                                       table: destinationLayout.table(forEntity: destination.entity(named: invocations[0].destinationEntity)!.root)?.name,
                                       policies: invocations))
        }

        // 2. Drop what is replaced or gone, then move new tables into place.
        let destinationNames = Set(destinationLayout.tables.map(\.name))
        for table in sourceLayout.tables {
            let replaced = rebuilt.contains(table.name) || newJoins.contains { $0.0.name == table.name }
            // Kept: a table altered in place comes from it (a destination table of the
            // same name may come from another one, renamed onto a removed entity's name).
            let kept = fastPath.contains { (tableRenamedFrom($0) ?? $0.name) == table.name } || keptJoins.contains(table.name)
            guard replaced || !kept else { continue }
            let fed = destination.entities.contains { sourceEntity(for: $0.name).flatMap { sourceLayout.table(forEntity: $0.root)?.name } == table.name }
            if !replaced, !fed, table.joinRelationship == nil { try warnDroppedTable(table) }
            steps.append(MigrationStep(kind: .dropTable, summary: "drop \(table.name)", sql: ["DROP TABLE \(SQLText.q(table.name))"],
                                       cost: .constant, table: table.name))
        }
        for (table, buildName) in newTables where buildName != table.name {
            steps.append(MigrationStep(kind: .renameColumn, summary: "move the rebuilt \(table.name) into place",
                                       sql: ["ALTER TABLE \(SQLText.q(buildName)) RENAME TO \(SQLText.q(table.name))"], cost: .constant, table: table.name))
        }
        for (table, buildName, _) in newJoins where buildName != table.name {
            steps.append(MigrationStep(kind: .renameColumn, summary: "move the rebuilt \(table.name) into place",
                                       sql: ["ALTER TABLE \(SQLText.q(buildName)) RENAME TO \(SQLText.q(table.name))"], cost: .constant, table: table.name))
        }

        // 3. Tables SQLite can change in place. A table renamed onto a name another
        // renamed table still has (a swap, a chain) first moves that one out of the
        // way under a temporary name.
        let renamedAwayTables = Set(fastPath.compactMap { tableRenamedFrom($0) })
        for table in fastPath where tableRenamedFrom(table) != nil && renamedAwayTables.contains(table.name) {
            let temporary = "MM_MOVING_" + table.name
            temporaryTableNames[table.name] = temporary
            steps.append(MigrationStep(kind: .renameColumn, summary: "move table \(table.name) out of the way (renamed below)",
                                       sql: ["ALTER TABLE \(SQLText.q(table.name)) RENAME TO \(SQLText.q(temporary))"], cost: .constant, table: table.name))
        }
        for table in fastPath {
            try alter(table)
        }

        // 4. Indexes: all of a new table's; the difference on altered and kept ones.
        let builtNames = Set(newTables.map(\.0.name) + newJoins.map(\.0.name))
        let paired = try oneToOneSteps()
        try entityTypeSteps(rebuilt: builtNames.union(paired))
        // Tables created empty: their indexes cost nothing.
        let emptyTables = Set(newTables.filter { table, _ in !destination.entities.contains { $0.root == table.entity && sourceEntity(for: $0.name) != nil } }.map(\.0.name)
                              + newJoins.filter { $0.2 == nil }.map(\.0.name))
        let oldIndexes = Dictionary(sourceLayout.indexes.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        let newIndexes = Dictionary(destinationLayout.indexes.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        // A table renamed in place keeps its indexes under their old names: drop them
        // (the loop below creates them under the new table's names).
        let renamedAway = Set(fastPath.compactMap { tableRenamedFrom($0) })
        for index in sourceLayout.indexes where renamedAway.contains(index.table) || (!builtNames.contains(index.table) && destinationNames.contains(index.table)) {
            // An index of a table renamed away moves with it under its old name, which
            // the table now taking that name may need: drop it whatever its definition.
            if newIndexes[index.name].map({ SchemaSQL.createIndex($0) }) != SchemaSQL.createIndex(index) || tableRenamed(index.table)
                || columnsRenamed.contains(index.table) || renamedAway.contains(index.table) {
                steps.append(MigrationStep(kind: .dropIndex, summary: "drop index \(index.name)", sql: ["DROP INDEX IF EXISTS \(SQLText.q(index.name))"], cost: .constant, table: index.table))
            }
        }
        for index in destinationLayout.indexes {
            let fresh = builtNames.contains(index.table)
            let changed = oldIndexes[index.name].map { SchemaSQL.createIndex($0) } != SchemaSQL.createIndex(index)
            guard fresh || changed || tableRenamedInto(index.table) || columnsRenamed.contains(index.table) else { continue }
            let rows = emptyTables.contains(index.table) ? 0 : try countAfter(index.table)
            steps.append(MigrationStep(kind: .createIndex, summary: "create \(index.isUnique ? "unique " : "")index \(index.name) on \(index.table)",
                                       sql: [SchemaSQL.createIndex(index)], cost: emptyTables.contains(index.table) ? .constant : .indexBuild(rows: rows), table: index.table))
        }
        entityNumberStep()
        addRequirements()
    }

    /// Sets the entity-type columns (`Z<n>_<NAME>`) that may be stale: on tables
    /// built anew, new columns, and references into tables built anew or whose
    /// entities changed number. One `UPDATE` per column, after every table is in place.
    mutating func entityTypeSteps(rebuilt: Set<String>) throws {
        for table in destinationLayout.tables where table.joinRelationship == nil {
            for column in table.columns {
                guard let (key, target, targetTable, label) = entityColumnSource(table, column) else { continue }
                let old = sourceLayout.table(named: tableRenamedFrom(table) ?? table.name)
                let renumbered = subtree(destination, target).contains { name in
                    sourceEntity(for: name).flatMap { sourceLayout.entityNumbers[$0.name] } != destinationLayout.entityNumbers[name]
                }
                let stale = rebuilt.contains(table.name) || rebuilt.contains(targetTable) || renumbered
                    || old?.column(for: column.role)?.name != column.name
                guard stale else { continue }
                steps.append(MigrationStep(kind: .updateRows, summary: "set \(table.name).\(column.name), the entity of each \(label) destination",
                                           sql: ["UPDATE \(SQLText.q(table.name)) SET \(SQLText.q(column.name)) = (SELECT d.Z_ENT FROM \(SQLText.q(targetTable)) AS d WHERE d.Z_PK = \(SQLText.q(table.name)).\(SQLText.q(key.name)))"],
                                           cost: .update(rows: try countAfter(table.name)), table: table.name))
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
            for r in entity.relationships where r.declaredIn == entity.name && !r.declaration.isToMany && !r.declaration.isTransient {
                guard let inverseName = r.declaration.inverse, let inverseOwner = r.inverseEntity,
                      let inverse = destination.entity(named: inverseOwner)?.relationship(named: inverseName), !inverse.declaration.isToMany,
                      (r.declaredIn, r.name) < (inverse.declaredIn, inverse.name) else { continue }
                if wasOneToOne(r) && wasOneToOne(inverse) { continue }
                // Both sides new: nothing stored yet.
                if sourceName(r.declaredIn, r.name) == nil && sourceName(inverse.declaredIn, inverse.name) == nil { continue }
                // A: the side made to-one (a reshape), else the first by name.
                let (a, b) = isReshaped(inverse) && !isReshaped(r) ? (inverse, r) : (r, inverse)
                guard let tableA = destinationLayout.table(forEntity: destination.entity(named: a.declaredIn)!.root),
                      let tableB = destinationLayout.table(forEntity: destination.entity(named: b.declaredIn)!.root),
                      let columnA = tableA.column(for: .toOne(entity: a.declaredIn, relationship: a.name)),
                      let columnB = tableB.column(for: .toOne(entity: b.declaredIn, relationship: b.name)) else { continue }
                let (na, nb) = (numbers(destinationLayout, subtree(destination, a.declaredIn)), numbers(destinationLayout, subtree(destination, b.declaredIn)))
                let (qa, qb, ca, cb) = (SQLText.q(tableA.name), SQLText.q(tableB.name), SQLText.q(columnA.name), SQLText.q(columnB.name))
                steps.append(MigrationStep(kind: .updateRows, summary: "set \(b.declaredIn).\(b.name) from \(a.declaredIn).\(a.name), so the one-to-one agrees",
                                           sql: ["UPDATE \(qb) SET \(cb) = (SELECT a.Z_PK FROM \(qa) AS a WHERE a.\(ca) = \(qb).Z_PK AND a.Z_ENT IN (\(SQLText.list(na))) ORDER BY a.Z_PK LIMIT 1) WHERE Z_ENT IN (\(SQLText.list(nb)))",
                                                 "UPDATE \(qa) SET \(ca) = NULL WHERE Z_ENT IN (\(SQLText.list(na))) AND \(ca) IS NOT NULL AND NOT EXISTS (SELECT 1 FROM \(qb) AS b WHERE b.Z_PK = \(qa).\(ca) AND b.\(cb) = \(qa).Z_PK)"],
                                           cost: .update(rows: try countAfter(tableA.name).adding(saturating: countAfter(tableB.name))), table: tableB.name))
                warnings.append(MigrationWarning(message: "\(a.declaredIn).\(a.name) and \(b.declaredIn).\(b.name) become a one-to-one: each object keeps at most one partner, the one with the lowest primary key; other pairings are cleared", isDestructive: true))
                changed.formUnion([tableA.name, tableB.name])
            }
        }
        return changed
    }

    /// True when a destination to-one relationship comes from a to-one whose
    /// inverse was a to-one too (its pairs already agree).
    func wasOneToOne(_ relationship: CompiledRelationship) -> Bool {
        guard let sourceOwner = sourceEntity(for: relationship.declaredIn), let from = sourceName(relationship.declaredIn, relationship.name),
              let old = sourceOwner.relationship(named: from), !old.declaration.isToMany,
              let oldInverse = old.declaration.inverse, let oldInverseOwner = old.inverseEntity,
              let oldInverseRelationship = source.entity(named: oldInverseOwner)?.relationship(named: oldInverse) else { return false }
        return !oldInverseRelationship.declaration.isToMany
    }

    /// True when a destination to-one relationship is a former to-many.
    func isReshaped(_ relationship: CompiledRelationship) -> Bool {
        if case .convert(_, .reshape)? = mapping.mapping(forDestination: relationship.declaredIn)?.property(relationship.name)?.source { return true }
        return false
    }

    /// For an entity-type column (`Z<n>_<NAME>`): its key column, the destination
    /// entity and the destination's table.
    func entityColumnSource(_ table: Table, _ column: Column) -> (key: Column, target: String, targetTable: String, label: String)? {
        guard case .toOneEntity(let owner, let name) = column.role,
              let relationship = destination.entity(named: owner)?.relationship(named: name),
              let key = table.column(for: .toOne(entity: owner, relationship: name)),
              let target = destination.entity(named: relationship.declaration.destination),
              let targetTable = destinationLayout.table(forEntity: target.root) else { return nil }
        return (key, target.name, targetTable.name, "\(owner).\(name)")
    }

    /// Every row's entity-type column holds the entity number of its destination row.
    func entityTypeCheck(_ table: Table, _ column: Column) -> MigrationCheck? {
        guard let (key, _, targetTable, label) = entityColumnSource(table, column) else { return nil }
        return MigrationCheck(summary: "\(table.name).\(column.name) holds the entity of each \(label) destination",
                              sql: "SELECT count(*) FROM \(SQLText.q(table.name)) AS a JOIN \(SQLText.q(targetTable)) AS d ON d.Z_PK = a.\(SQLText.q(key.name)) WHERE a.\(SQLText.q(column.name)) IS NOT d.Z_ENT")
    }

    /// Rows a destination table will hold: counted on the table it comes from.
    func countAfter(_ table: String) throws -> Int64 {
        if let old = sourceLayout.table(named: table) { return try count(old.name, nil) }
        if let new = destinationLayout.table(named: table), let renamed = tableRenamedFrom(new) { return try count(renamed, nil) }
        let hierarchy = destination.entities.filter { destinationLayout.table(forEntity: $0.root)?.name == table }
        var total: Int64 = 0
        for entity in hierarchy {
            if let s = sourceEntity(for: entity.name), let old = sourceLayout.table(forEntity: s.root), let n = sourceLayout.entityNumbers[s.name] {
                total = total.adding(saturating: try count(old.name, [n]))
            }
        }
        return total
    }

    // MARK: In place (ALTER TABLE)

    /// The source table a fast-path destination table comes from, when renamed.
    func tableRenamedFrom(_ table: Table) -> String? {
        guard table.joinRelationship == nil else { return nil }
        let hierarchy = destination.entities.filter { $0.root == table.entity }
        let sourceRoots = Set(hierarchy.compactMap { sourceEntity(for: $0.name)?.root })
        guard let root = sourceRoots.first, let old = sourceLayout.table(forEntity: root), old.name != table.name else { return nil }
        return old.name
    }

    func tableRenamed(_ name: String) -> Bool { sourceLayout.table(named: name) != nil && destinationLayout.table(named: name) == nil }
    func tableRenamedInto(_ name: String) -> Bool {
        guard let table = destinationLayout.table(named: name) else { return false }
        return tableRenamedFrom(table) != nil
    }

    /// How a destination column gets its value from a row of `sourceTable`, when
    /// no other table is needed: a source column (same storage) or a constant.
    enum InPlace: Equatable {
        case same(String)
        case constant(String)
        case fill(String, String)   // source column, default literal for NULLs
    }

    func inPlace(_ column: Column, of table: Table) -> InPlace? {
        switch column.role {
        case .primaryKey, .entityNumber, .changeCounter: return .same(column.name)
        case .attribute(let owner, let property):
            guard let entity = destination.entity(named: owner), let attribute = entity.attribute(named: property) else { return nil }
            // Every entity whose rows hold the column must fill it the same way: a
            // property moved up a hierarchy comes from each subentity's own mapping.
            let storing = destination.entities.filter { lineageNames(destination, $0.name).contains(owner) && sourceEntity(for: $0.name) != nil }
            var result: InPlace?
            for name in storing.isEmpty ? [owner] : storing.map(\.name) {
                guard let how = inPlace(column, attribute: attribute, storedBy: name) else { return nil }
                if let result, result != how { return nil }
                result = how
            }
            return result
        case .toOne(let owner, let name):
            guard let entity = destination.entity(named: owner), let relationship = entity.relationship(named: name) else { return nil }
            guard let found = pairs(for: entity, relationship) else { return .constant("NULL") }
            if case .column(let tableName, let old, _) = found.0, !found.1, sourceLayout.table(named: tableName)?.column(for: .toOne(entity: owner, relationship: name)) != nil || tableName == (tableRenamedFrom(table) ?? table.name) {
                return .same(old)
            }
            return nil
        case .order(let owner, let name):
            guard let entity = destination.entity(named: owner), let relationship = entity.relationship(named: name) else { return nil }
            guard let found = pairs(for: entity, relationship) else { return .constant("NULL") }
            if case .reverseColumn(_, _, let order?) = found.0, !found.1 { return .same(order) }
            return nil
        case .toManyKey(let owner, let name):
            guard let entity = destination.entity(named: owner), let relationship = entity.relationship(named: name) else { return nil }
            guard let found = pairs(for: entity, relationship) else { return .constant("NULL") }
            if case .reverseColumn(let tableName, let column, _) = found.0, !found.1, tableName == (tableRenamedFrom(table) ?? table.name) {
                return .same(column)
            }
            return nil
        case .toOneEntity:
            // Kept when the table already has it; otherwise added empty and set by
            // `entityTypeSteps` from the destination rows.
            if let old = sourceLayout.table(named: tableRenamedFrom(table) ?? table.name), old.column(for: column.role)?.name == column.name {
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
            guard let sourceEntity = sourceEntity(for: entity), let old = sourceColumn(sourceEntity, from), old.type == column.type,
                  sourceEntity.attribute(named: from)?.declaration.allowsExternalStorage == attribute.declaration.allowsExternalStorage else { return nil }
            return .same(old.name)
        case .convert(let from, .widen)?:
            guard let sourceEntity = sourceEntity(for: entity), let old = sourceColumn(sourceEntity, from), old.type == column.type else { return nil }
            // Widened and made required in one go: nil values take the default too.
            if !attribute.declaration.isOptional, let value = attribute.declaration.defaultValue,
               sourceEntity.attribute(named: from)?.declaration.isOptional == true {
                return .fill(old.name, SQLText.literal(value, as: type))
            }
            return .same(old.name)
        case .convert(let from, .fillDefault)?:
            guard let sourceEntity = sourceEntity(for: entity), let old = sourceColumn(sourceEntity, from), old.type == column.type else { return nil }
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
               old != destinationLayout.entityNumbers[entity.name] {
                return false
            }
        }
        // Every source entity in the old table must stay in this table or be removed.
        for entity in source.entities where sourceLayout.table(forEntity: entity.root)?.name == old.name {
            if let destination = mapping.entityMappings.first(where: { $0.source == entity.name })?.destination,
               destinationLayout.table(forEntity: self.destination.entity(named: destination)!.root)?.name != table.name {
                return false
            }
        }
        if mapping.entityMappings.contains(where: { $0.kind == .custom && $0.destination.map { destination.entity(named: $0)?.root } == table.entity }) {
            return false
        }
        var used: Set<String> = []
        for column in table.columns {
            guard let how = inPlace(column, of: table) else { return false }
            switch how {
            case .same(let name), .fill(let name, _):
                guard old.columns.contains(where: { $0.name == name }), used.insert(name).inserted else { return false }
            case .constant:
                if old.columns.contains(where: { $0.name == column.name }) && !table.columns.contains(where: { inPlace($0, of: table) == .same(column.name) }) {
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

    mutating func alter(_ table: Table) throws {
        let oldName = tableRenamedFrom(table) ?? table.name
        let old = sourceLayout.table(named: oldName)!
        if oldName != table.name {
            let current = temporaryTableNames[oldName] ?? oldName
            steps.append(MigrationStep(kind: .renameColumn, summary: "rename table \(oldName) to \(table.name)",
                                       sql: ["ALTER TABLE \(SQLText.q(current)) RENAME TO \(SQLText.q(table.name))"], cost: .constant, table: table.name))
        }
        let used = Set(table.columns.compactMap { column -> String? in
            switch inPlace(column, of: table) {
            case .same(let name)?, .fill(let name, _)?: name
            default: nil
            }
        })
        let dropped = droppedColumns(of: old, used: used) ?? []
        // A safety net: a column is dropped only when the mapping drops what it holds.
        for column in dropped {
            let kept: Bool
            switch column.role {
            case .attribute(let entity, let property), .toOne(let entity, let property), .toManyKey(let entity, let property):
                kept = mapping.entityMappings.contains { m in
                    guard let s = m.source, m.kind != .remove, lineageNames(source, s).contains(entity) else { return false }
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
                throw PlanningError(message: "refusing to plan: \(old.name).\(column.name) would be dropped although the mapping keeps its values (this is a bug in the planner; please report it)", isNoPath: false)
            }
        }
        if !dropped.isEmpty {
            let rows = try count(oldName, nil)
            try warnDroppedColumns(dropped, in: old)
            for column in dropped {
                steps.append(MigrationStep(kind: .dropColumn, summary: "drop \(table.name).\(column.name) (SQLite rewrites the rows in place)",
                                           sql: ["ALTER TABLE \(SQLText.q(table.name)) DROP COLUMN \(SQLText.q(column.name))"],
                                           cost: .rewrite(rows: rows), table: table.name))
            }
        }
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
        // Renames that land on a name another column still has (suffixes shifting
        // when a property takes a name before them, numbers changing) go through
        // temporary names, all at once.
        let remaining = Set(old.columns.map(\.name)).subtracting(dropped.map(\.name))
        let collides = renames.contains { rename in remaining.contains(rename.to) }
        let moves: [(String, String)] = collides
            ? renames.enumerated().map { ($0.element.from, "MM_TMP_\($0.offset)") } + renames.enumerated().map { ("MM_TMP_\($0.offset)", $0.element.to) }
            : renames.map { ($0.from, $0.to) }
        for (from, to) in moves {
            steps.append(MigrationStep(kind: .renameColumn, summary: "rename \(table.name).\(from) to \(to)",
                                       sql: ["ALTER TABLE \(SQLText.q(table.name)) RENAME COLUMN \(SQLText.q(from)) TO \(SQLText.q(to))"],
                                       cost: .constant, table: table.name))
        }
        if !renames.isEmpty {
            // SQLite moves indexes along with renamed columns: rebuild them by name.
            columnsRenamed.formUnion([table.name, oldName])
        }
        for (column, literal) in adds {
            // A subentity's column holds nil in the rows of every other entity of the
            // table (as Core Data writes them): a default goes into its own rows only.
            if literal != "NULL", let scope = ownerScope(column, in: table) {
                steps.append(MigrationStep(kind: .addColumn, summary: "add \(table.name).\(column.name)",
                                           sql: ["ALTER TABLE \(SQLText.q(table.name)) ADD COLUMN \(SQLText.q(column.name)) \(column.type)"],
                                           cost: .constant, table: table.name))
                if !scope.isEmpty {
                    steps.append(MigrationStep(kind: .updateRows, summary: "set \(table.name).\(column.name) to \(literal) in the rows of its entity",
                                               sql: ["UPDATE \(SQLText.q(table.name)) SET \(SQLText.q(column.name)) = \(literal) WHERE Z_ENT IN (\(SQLText.list(scope)))"],
                                               cost: .update(rows: try count(oldName, scope)), table: table.name))
                }
                continue
            }
            let defaultClause = literal == "NULL" ? "" : " DEFAULT \(literal)"
            steps.append(MigrationStep(kind: .addColumn, summary: "add \(table.name).\(column.name)\(defaultClause.isEmpty ? "" : " (default \(literal))")",
                                       sql: ["ALTER TABLE \(SQLText.q(table.name)) ADD COLUMN \(SQLText.q(column.name)) \(column.type)\(defaultClause)"],
                                       cost: .constant, table: table.name))
        }
        for (column, literal, scope) in fills {
            if let scope, scope.isEmpty { continue }
            let rows = try count(oldName, scope)
            let only = scope.map { " AND Z_ENT IN (\(SQLText.list($0)))" } ?? ""
            steps.append(MigrationStep(kind: .updateRows, summary: "fill nil values of \(table.name).\(column) with \(literal)",
                                       sql: ["UPDATE \(SQLText.q(table.name)) SET \(SQLText.q(column)) = \(literal) WHERE \(SQLText.q(column)) IS NULL\(only)"],
                                       cost: .update(rows: rows), table: table.name))
        }
        // Rows of entities removed from this hierarchy.
        for entity in source.entities where sourceLayout.table(forEntity: entity.root)?.name == old.name {
            guard mapping.entityMappings.contains(where: { $0.kind == .remove && $0.source == entity.name }),
                  let number = sourceLayout.entityNumbers[entity.name] else { continue }
            let rows = try count(old.name, [number])
            if rows > 0 {
                warnings.append(MigrationWarning(message: "entity \(entity.name) is removed: its \(rows) row\(rows == 1 ? " is" : "s are") deleted", isDestructive: true))
            }
            steps.append(MigrationStep(kind: .deleteRows, summary: "delete the rows of removed entity \(entity.name)",
                                       sql: ["DELETE FROM \(SQLText.q(table.name)) WHERE Z_ENT = \(number)"], cost: .update(rows: rows), table: table.name))
            addReferenceChecks(into: table.name)
        }
    }

    /// For a column of a subentity in a table its hierarchy shares: the entity
    /// numbers (as the rows have them before this hop) of the rows that hold it;
    /// `nil` when every row of the table does.
    func ownerScope(_ column: Column, in table: Table) -> [Int]? {
        guard case .attribute(let owner, _) = column.role, let entity = destination.entity(named: owner), entity.parent != nil else { return nil }
        let members = Set(subtree(destination, owner))
        guard destination.entities.contains(where: { $0.root == table.entity && !members.contains($0.name) }) else { return nil }
        return members.compactMap { sourceEntity(for: $0) }.compactMap { sourceLayout.entityNumbers[$0.name] }.sorted()
    }

    // MARK: Rebuild (INSERT … SELECT)

    mutating func build(_ table: Table, as buildName: String) throws {
        var renamed = table
        renamed.name = buildName
        var sql = [SchemaSQL.createTable(renamed)]
        var expected: [String] = []
        var rows: Int64 = 0
        let hierarchy = destination.entities.filter { $0.root == table.entity }
        var sourceTableName: String?
        for entity in hierarchy {
            guard let sourceEntity = sourceEntity(for: entity.name), let old = sourceLayout.table(forEntity: sourceEntity.root),
                  let number = sourceLayout.entityNumbers[sourceEntity.name], let newNumber = destinationLayout.entityNumbers[entity.name] else { continue }
            sourceTableName = old.name
            let mapping = self.mapping.mapping(forDestination: entity.name)
            if mapping?.kind == .custom {
                // The policy step writes these rows.
                continue
            }
            let lineage = Set(lineageNames(destination, entity.name))
            var columns: [String] = []
            var values: [String] = []
            for column in table.columns {
                columns.append(SQLText.q(column.name))
                values.append(expression(for: column, entity: entity, lineage: lineage, sourceEntity: sourceEntity, newNumber: newNumber))
            }
            sql.append("INSERT INTO \(SQLText.q(buildName)) (\(columns.joined(separator: ", "))) SELECT \(values.joined(separator: ", ")) FROM \(SQLText.q(old.name)) AS s WHERE s.Z_ENT = \(number)")
            expected.append("(SELECT count(*) FROM \(SQLText.q(old.name)) WHERE Z_ENT = \(number))")
            rows = rows.adding(saturating: try count(old.name, [number]))
            try warnDropped(mapping, sourceEntity: sourceEntity, numbers: [number])
        }
        // Rows of entities removed from the hierarchy are not copied: warn as alter() does.
        if let sourceTableName {
            for entity in source.entities where sourceLayout.table(forEntity: entity.root)?.name == sourceTableName {
                guard self.mapping.entityMappings.contains(where: { $0.kind == .remove && $0.source == entity.name }),
                      let number = sourceLayout.entityNumbers[entity.name] else { continue }
                let removed = try count(sourceTableName, [number])
                if removed > 0 {
                    warnings.append(MigrationWarning(message: "entity \(entity.name) is removed: its \(removed) row\(removed == 1 ? " is" : "s are") deleted", isDestructive: true))
                }
                addReferenceChecks(into: table.name)
            }
        }
        let from = sourceTableName.map { " from \($0)" } ?? ""
        let policyOnly = sourceTableName != nil && expected.isEmpty
        steps.append(MigrationStep(kind: sourceTableName == nil ? .createTable : .rebuildTable,
                                   summary: sourceTableName == nil ? "create table \(table.name)"
                                       : policyOnly ? "create the new \(table.name) (its rows come from a policy)"
                                       : "rebuild \(table.name)\(from) (SQLite's 12-step procedure)",
                                   sql: sql, cost: sourceTableName == nil || policyOnly ? .constant : .rewrite(rows: rows), table: table.name,
                                   expectedRowsSQL: expected.isEmpty ? nil : "SELECT " + expected.joined(separator: " + ")))
        if sourceTableName != nil { addRebuildChecks(table) }
    }

    func lineageNames(_ version: CompiledVersion, _ name: String) -> [String] { version.lineage(of: name) }

    func expression(for column: Column, entity: CompiledEntity, lineage: Set<String>, sourceEntity: CompiledEntity, newNumber: Int) -> String {
        switch column.role {
        case .primaryKey: return "s.Z_PK"
        case .entityNumber: return String(newNumber)
        case .changeCounter: return "s.Z_OPT"
        case .attribute(let owner, let property):
            guard lineage.contains(owner), let attribute = entity.attribute(named: property) else { return "NULL" }
            let type = attribute.declaration.type
            switch mapping.mapping(forDestination: entity.name)?.property(property)?.source {
            case .copy(let from)?:
                guard let old = sourceColumn(sourceEntity, from) else { return "NULL" }
                let value = "s.\(SQLText.q(old.name))"
                // Binary data that allows external storage carries Core Data's marker byte.
                switch (sourceEntity.attribute(named: from)?.declaration.allowsExternalStorage == true, attribute.declaration.allowsExternalStorage) {
                case (false, true) where type == .binary: return "CASE WHEN \(value) IS NULL THEN NULL ELSE CAST(X'01' || \(value) AS BLOB) END"
                case (true, false) where type == .binary: return "CASE WHEN substr(\(value), 1, 1) = X'01' THEN substr(\(value), 2) ELSE \(value) END"
                default: break
                }
                return old.type == column.type ? value : "CAST(\(value) AS \(SQLText.castType(type)))"
            case .convert(let from, let conversion)?:
                guard let old = sourceColumn(sourceEntity, from) else { return "NULL" }
                let value = old.type == column.type ? "s.\(SQLText.q(old.name))" : "CAST(s.\(SQLText.q(old.name)) AS \(SQLText.castType(type)))"
                if conversion == .fillDefault || (!attribute.declaration.isOptional && attribute.declaration.defaultValue != nil) {
                    return "coalesce(\(value), \(SQLText.literal(attribute.declaration.defaultValue, as: type)))"
                }
                return value
            case .defaultValue(let value)?:
                return SQLText.literal(value, as: type)
            default:
                return "NULL"
            }
        case .toOne(let owner, let name):
            guard lineage.contains(owner), let relationship = entity.relationship(named: name), let found = pairs(for: entity, relationship) else { return "NULL" }
            return destinationOfRow(found.0, reversed: found.1)
        case .toManyKey(let owner, let name):
            // This row is a destination of owner.name (a to-many without an inverse): the owner's key.
            guard let ownerEntity = destination.entity(named: owner), let relationship = ownerEntity.relationship(named: name),
                  lineage.contains(relationship.declaration.destination), let found = pairs(for: ownerEntity, relationship) else { return "NULL" }
            return destinationOfRow(found.0, reversed: !found.1)
        case .order(let owner, let name):
            // This row is a destination of owner.name (ordered to-many): its position.
            guard let ownerEntity = destination.entity(named: owner), let relationship = ownerEntity.relationship(named: name) else { return "NULL" }
            let isDestinationRow = relationship.declaration.inverse.map { inverse in
                lineage.contains { destination.entity(named: $0)?.relationship(named: inverse) != nil }
            } ?? lineage.contains(relationship.declaration.destination)
            guard isDestinationRow else { return "NULL" }
            if let found = pairs(for: ownerEntity, relationship), !found.1 {
                switch found.0 {
                case .reverseColumn(_, _, let order?):
                    return "s.\(SQLText.q(order))"
                case .join(let table, let mine, let theirs, let order?):
                    // From an ordered many-to-many: the position under the owner the
                    // key column keeps (the lowest, as `destinationOfRow` picks it).
                    return "(SELECT j.\(SQLText.q(order)) FROM \(SQLText.q(table)) AS j WHERE j.\(SQLText.q(theirs)) = s.Z_PK ORDER BY j.\(SQLText.q(mine)) LIMIT 1)"
                default:
                    break
                }
            }
            // Newly ordered: keep the order of primary keys.
            return "s.Z_PK"
        case .joinKey, .toOneEntity:
            // Entity-type columns are set by `entityTypeSteps` once every table is in place.
            return "NULL"
        }
    }

    /// The destination key of the row `s` for a to-one relationship, from where the pairs were.
    func destinationOfRow(_ source: PairSource, reversed: Bool) -> String {
        switch (source, reversed) {
        case (.column(_, let column, _), false):
            return "s.\(SQLText.q(column))"
        case (.column(let table, let column, let numbers), true):
            return "(SELECT t.Z_PK FROM \(SQLText.q(table)) AS t WHERE t.\(SQLText.q(column)) = s.Z_PK AND t.Z_ENT IN (\(SQLText.list(numbers))) ORDER BY t.Z_PK LIMIT 1)"
        case (.reverseColumn(let table, let column, _), false):
            return "(SELECT t.Z_PK FROM \(SQLText.q(table)) AS t WHERE t.\(SQLText.q(column)) = s.Z_PK ORDER BY t.Z_PK LIMIT 1)"
        case (.reverseColumn(let table, let column, _), true):
            return "(SELECT t.\(SQLText.q(column)) FROM \(SQLText.q(table)) AS t WHERE t.Z_PK = s.Z_PK)"
        case (.join(let table, let mine, let theirs, _), false):
            return "(SELECT j.\(SQLText.q(theirs)) FROM \(SQLText.q(table)) AS j WHERE j.\(SQLText.q(mine)) = s.Z_PK ORDER BY j.\(SQLText.q(theirs)) LIMIT 1)"
        case (.join(let table, let mine, let theirs, _), true):
            return "(SELECT j.\(SQLText.q(mine)) FROM \(SQLText.q(table)) AS j WHERE j.\(SQLText.q(theirs)) = s.Z_PK ORDER BY j.\(SQLText.q(mine)) LIMIT 1)"
        }
    }

    /// `SELECT … AS k1, … AS k2` of every pair (k1 the relationship's owner's key,
    /// k2 its destination's; swapped when `reversed`).
    func pairSelect(_ source: PairSource, reversed: Bool) -> String {
        var (a, b, from): (String, String, String)
        switch source {
        case .column(let table, let column, let numbers):
            (a, b, from) = ("Z_PK", SQLText.q(column), "\(SQLText.q(table)) WHERE \(SQLText.q(column)) IS NOT NULL AND Z_ENT IN (\(SQLText.list(numbers)))")
        case .reverseColumn(let table, let column, _):
            (a, b, from) = (SQLText.q(column), "Z_PK", "\(SQLText.q(table)) WHERE \(SQLText.q(column)) IS NOT NULL")
        case .join(let table, let mine, let theirs, _):
            (a, b, from) = (SQLText.q(mine), SQLText.q(theirs), SQLText.q(table))
        }
        if reversed { swap(&a, &b) }
        return "SELECT \(a) AS k1, \(b) AS k2 FROM \(from)"
    }

    /// The position of the pair (`owner`, `destination`) in ordered relationship
    /// `entity.name`: from where the store keeps its order, or, newly ordered, the
    /// destination's key (positions follow primary keys).
    func orderValue(_ entity: String, _ name: String, owner: String, destination destinationKey: String) -> String {
        guard let ownerEntity = destination.entity(named: entity), let relationship = ownerEntity.relationship(named: name),
              let found = pairs(for: ownerEntity, relationship), !found.1 else { return destinationKey }
        switch found.0 {
        case .join(let table, let mine, let theirs, let order?):
            return "(SELECT j.\(SQLText.q(order)) FROM \(SQLText.q(table)) AS j WHERE j.\(SQLText.q(mine)) = \(owner) AND j.\(SQLText.q(theirs)) = \(destinationKey))"
        case .reverseColumn(let table, let column, let order?):
            return "(SELECT r.\(SQLText.q(order)) FROM \(SQLText.q(table)) AS r WHERE r.Z_PK = \(destinationKey) AND r.\(SQLText.q(column)) = \(owner))"
        default:
            return destinationKey
        }
    }

    mutating func buildJoin(_ table: Table, as buildName: String, pairs found: (PairSource, Bool)?) throws {
        var renamed = table
        renamed.name = buildName
        var sql = [SchemaSQL.createTable(renamed)]
        var cost = StepCost.constant
        if let found {
            // Columns: the keys of the table's relationship's owner (k1) and
            // destination (k2), then the order of each ordered side, each read from
            // where the store keeps that side's order.
            var targets = [SQLText.q(table.columns[0].name), SQLText.q(table.columns[1].name)]
            var values = ["p.k1", "p.k2"]
            for column in table.columns.dropFirst(2) {
                guard case .order(let entity, let name) = column.role else { continue }
                targets.append(SQLText.q(column.name))
                values.append("\(entity).\(name)" == table.joinRelationship
                              ? orderValue(entity, name, owner: "p.k1", destination: "p.k2")
                              : orderValue(entity, name, owner: "p.k2", destination: "p.k1"))
            }
            sql.append("INSERT OR IGNORE INTO \(SQLText.q(buildName)) (\(targets.joined(separator: ", "))) SELECT \(values.joined(separator: ", ")) FROM (\(pairSelect(found.0, reversed: found.1))) AS p")
            let sourceTable: String = switch found.0 {
            case .column(let t, _, _), .reverseColumn(let t, _, _), .join(let t, _, _, _): t
            }
            cost = .rewrite(rows: try count(sourceTable, nil))
        }
        steps.append(MigrationStep(kind: found == nil ? .createTable : .fillJoinTable,
                                   summary: found == nil ? "create join table \(table.name)" : "fill join table \(table.name) from the old relationship storage",
                                   sql: sql, cost: cost, table: table.name))
        if found != nil { addRebuildChecks(table) }
    }

    // MARK: Bookkeeping, checks, warnings

    mutating func entityNumberStep() {
        var sql: [String] = []
        let old = sourceLayout.entityNumbers
        let new = destinationLayout.entityNumbers
        let renumbered = destination.entities.contains { entity in
            sourceEntity(for: entity.name).flatMap { old[$0.name] }.map { $0 != new[entity.name] } ?? false
        }
        if renumbered {
            // Numbers move between entities: rewrite the table, each entity keeping
            // its own key counter (`Z_MAX`) under its new number.
            sql.append("CREATE TEMP TABLE MM_OLD_PRIMARYKEY AS SELECT Z_ENT, Z_MAX FROM Z_PRIMARYKEY")
            // Only the model's rows: Core Data's own entities (persistent history,
            // CloudKit mirroring) keep theirs.
            let modelNumbers = Set(old.values).union(new.values).sorted()
            sql.append("DELETE FROM Z_PRIMARYKEY WHERE Z_ENT IN (\(SQLText.list(modelNumbers)))")
            for entity in destination.entities.sorted(by: { (new[$0.name] ?? 0) < (new[$1.name] ?? 0) }) {
                guard let number = new[entity.name] else { continue }
                let parent = entity.parent.flatMap { new[$0] } ?? 0
                let counter = sourceEntity(for: entity.name).flatMap { old[$0.name] }
                    .map { "coalesce((SELECT Z_MAX FROM MM_OLD_PRIMARYKEY WHERE Z_ENT = \($0)), 0)" } ?? "0"
                sql.append("INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (\(number), '\(entity.name)', \(parent), \(counter))")
            }
            sql.append("DROP TABLE MM_OLD_PRIMARYKEY")
        } else {
            for (name, number) in old.sorted(by: { $0.value < $1.value }) where !new.values.contains(number) {
                sql.append("DELETE FROM Z_PRIMARYKEY WHERE Z_ENT = \(number) -- \(name) removed")
            }
            for entity in destination.entities {
                guard let number = new[entity.name] else { continue }
                let parent = entity.parent.flatMap { new[$0] } ?? 0
                if old.values.contains(number) {
                    // The store may lack the row (Core Data's own migrations leave old
                    // names; a damaged store none): write it with the number used.
                    if let stored = storedKeyNumbers, !stored.contains(number) {
                        sql.append("INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) SELECT \(number), '\(entity.name)', \(parent), 0 WHERE NOT EXISTS (SELECT 1 FROM Z_PRIMARYKEY WHERE Z_ENT = \(number))")
                    }
                    sql.append("UPDATE Z_PRIMARYKEY SET Z_NAME = '\(entity.name)', Z_SUPER = \(parent) WHERE Z_ENT = \(number)")
                } else {
                    sql.append("INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (\(number), '\(entity.name)', \(parent), 0)")
                }
            }
        }
        for table in destinationLayout.tables where table.joinRelationship == nil {
            guard let number = new[table.entity] else { continue }
            sql.append("UPDATE Z_PRIMARYKEY SET Z_MAX = max(Z_MAX, coalesce((SELECT max(Z_PK) FROM \(SQLText.q(table.name))), 0)) WHERE Z_ENT = \(number)")
        }
        steps.append(MigrationStep(kind: .entityNumbers,
                                   summary: renumbered ? "update Z_PRIMARYKEY (the numbers Core Data gives the new model's entities)"
                                                       : "update Z_PRIMARYKEY (entity numbers stay; new entities get new ones)",
                                   sql: sql, cost: .constant, table: "Z_PRIMARYKEY"))
    }

    mutating func addRebuildChecks(_ table: Table) {
        for column in table.columns {
            switch column.role {
            case .attribute(let owner, let property):
                guard let entity = destination.entity(named: owner), let a = entity.attribute(named: property)?.declaration, !a.isOptional else { continue }
                if copiedFromRequired(owner, property) { continue }
                let scope = numbers(destinationLayout, destination.entities.filter { lineageNames(destination, $0.name).contains(owner) }.map(\.name))
                checks.append(MigrationCheck(summary: "required \(owner).\(property) has a value in every row",
                                             sql: "SELECT count(*) FROM \(SQLText.q(table.name)) WHERE Z_ENT IN (\(SQLText.list(scope))) AND \(SQLText.q(column.name)) IS NULL"))
            case .toOne(let owner, let name):
                guard let entity = destination.entity(named: owner), let r = entity.relationship(named: name)?.declaration,
                      let target = destination.entity(named: r.destination), let targetTable = destinationLayout.table(forEntity: target.root) else { continue }
                let targets = numbers(destinationLayout, subtree(destination, target.name))
                checks.append(MigrationCheck(summary: "\(owner).\(name) points to existing \(target.name) objects",
                                             sql: "SELECT count(*) FROM \(SQLText.q(table.name)) AS a WHERE a.\(SQLText.q(column.name)) IS NOT NULL AND NOT EXISTS (SELECT 1 FROM \(SQLText.q(targetTable.name)) AS d WHERE d.Z_PK = a.\(SQLText.q(column.name)) AND d.Z_ENT IN (\(SQLText.list(targets))))",
                                             reference: ReferenceKey(entity: owner, relationship: name, towardOwner: false)))
                if !r.isOptional {
                    let scope = numbers(destinationLayout, destination.entities.filter { lineageNames(destination, $0.name).contains(owner) }.map(\.name))
                    checks.append(MigrationCheck(summary: "required \(owner).\(name) is set in every row",
                                                 sql: "SELECT count(*) FROM \(SQLText.q(table.name)) WHERE Z_ENT IN (\(SQLText.list(scope))) AND \(SQLText.q(column.name)) IS NULL"))
                }
            case .toOneEntity:
                if let check = entityTypeCheck(table, column), !checks.contains(check) { checks.append(check) }
            case .toManyKey(let owner, let name):
                guard let ownerEntity = destination.entity(named: owner), ownerEntity.relationship(named: name) != nil,
                      let ownerTable = destinationLayout.table(forEntity: ownerEntity.root) else { continue }
                let owners = numbers(destinationLayout, subtree(destination, owner))
                checks.append(MigrationCheck(summary: "\(table.name).\(column.name) points to existing \(owner) objects",
                                             sql: "SELECT count(*) FROM \(SQLText.q(table.name)) AS a WHERE a.\(SQLText.q(column.name)) IS NOT NULL AND NOT EXISTS (SELECT 1 FROM \(SQLText.q(ownerTable.name)) AS d WHERE d.Z_PK = a.\(SQLText.q(column.name)) AND d.Z_ENT IN (\(SQLText.list(owners))))",
                                             reference: ReferenceKey(entity: owner, relationship: name, towardOwner: true)))
            case .joinKey(let entityName, _):
                guard let target = destination.entity(named: entityName), let targetTable = destinationLayout.table(forEntity: target.root) else { continue }
                let targets = numbers(destinationLayout, subtree(destination, target.name))
                checks.append(MigrationCheck(summary: "\(table.name).\(column.name) points to existing \(target.name) objects",
                                             sql: "SELECT count(*) FROM \(SQLText.q(table.name)) AS a WHERE NOT EXISTS (SELECT 1 FROM \(SQLText.q(targetTable.name)) AS d WHERE d.Z_PK = a.\(SQLText.q(column.name)) AND d.Z_ENT IN (\(SQLText.list(targets))))",
                                             reference: joinReference(table, column)))
            default: continue
            }
        }
    }

    /// The relationship direction a join table's key column stores: the first
    /// column holds the keys of the objects owning the relationship the table is
    /// named after, the second those of its destinations.
    func joinReference(_ table: Table, _ column: Column) -> ReferenceKey? {
        guard let owner = table.joinRelationship, let dot = owner.firstIndex(of: ".") else { return nil }
        return ReferenceKey(entity: String(owner[..<dot]), relationship: String(owner[owner.index(after: dot)...]),
                            towardOwner: table.columns.first?.name == column.name)
    }

    /// True when every entity storing this attribute copies it from a required
    /// attribute: its values were already checked when they were written.
    func copiedFromRequired(_ owner: String, _ property: String) -> Bool {
        let storing = destination.entities.filter { lineageNames(destination, $0.name).contains(owner) }
        guard !storing.isEmpty else { return false }
        return storing.allSatisfy { entity in
            guard let mapping = mapping.mapping(forDestination: entity.name), mapping.kind != .custom,
                  let sourceEntity = sourceEntity(for: entity.name) else { return false }
            switch mapping.property(property)?.source {
            case .copy(let from)?, .convert(let from, .widen)?:
                return sourceEntity.attribute(named: from)?.declaration.isOptional == false
            default:
                return false
            }
        }
    }

    /// Rows were deleted from `table`: references into it must still resolve.
    mutating func addReferenceChecks(into table: String) {
        for other in destinationLayout.tables {
            for column in other.columns {
                guard case .toOne(let owner, let name) = column.role, let r = destination.entity(named: owner)?.relationship(named: name)?.declaration,
                      let target = destination.entity(named: r.destination), destinationLayout.table(forEntity: target.root)?.name == table else { continue }
                let targets = numbers(destinationLayout, subtree(destination, target.name))
                checks.append(MigrationCheck(summary: "\(owner).\(name) still points to existing \(target.name) objects",
                                             sql: "SELECT count(*) FROM \(SQLText.q(other.name)) AS a WHERE a.\(SQLText.q(column.name)) IS NOT NULL AND NOT EXISTS (SELECT 1 FROM \(SQLText.q(table)) AS d WHERE d.Z_PK = a.\(SQLText.q(column.name)) AND d.Z_ENT IN (\(SQLText.list(targets))))",
                                             reference: ReferenceKey(entity: owner, relationship: name, towardOwner: false)))
            }
        }
    }

    mutating func warnDropped(_ mapping: EntityMapping?, sourceEntity: CompiledEntity, numbers: [Int], policy: Bool = false) throws {
        guard let mapping, let table = sourceLayout.table(forEntity: sourceEntity.root) else { return }
        for property in mapping.droppedProperties {
            // A policy reads every source property; what it keeps is its business.
            if policy { break }
            if let column = sourceColumn(sourceEntity, property) {
                let values = try countValues(table.name, column.name, numbers)
                if let warning = Self.droppedWarning("\(sourceEntity.name).\(property)", values: values) { warnings.append(warning) }
            }
        }
        for property in mapping.properties {
            if case .convert(let from, .widen) = property.source, let old = sourceEntity.attribute(named: from),
               old.declaration.type == .integer64, destination.entity(named: mapping.destination ?? "")?.attribute(named: property.name)?.declaration.type == .double {
                warnings.append(MigrationWarning(message: "\(sourceEntity.name).\(from): integer64 → double loses precision above 2^53", isDestructive: false))
            }
        }
    }

    /// The warning for a dropped property holding `values` non-nil values
    /// (`RowCounter.notCounted` when it holds some that were not counted).
    static func droppedWarning(_ property: String, values: Int64) -> MigrationWarning? {
        if values == RowCounter.notCounted {
            return MigrationWarning(message: "\(property) is dropped: it holds non-nil values, which will be lost (not counted in a table this large; `migrate plan --exact-counts` counts them)", isDestructive: true)
        }
        guard values > 0 else { return nil }
        return MigrationWarning(message: "\(property) is dropped: \(values) non-nil value\(values == 1 ? "" : "s") will be lost", isDestructive: true)
    }

    /// Destructive warnings for columns dropped in place.
    mutating func warnDroppedColumns(_ columns: [Column], in table: Table) throws {
        for column in columns {
            let (entity, property): (String, String)
            let rowsOf: String
            switch column.role {
            case .attribute(let e, let p), .toOne(let e, let p): (entity, property, rowsOf) = (e, p, e)
            case .toManyKey(let e, let p):
                // The key sits on the destination's rows.
                guard let destination = source.entity(named: e)?.relationship(named: p)?.declaration.destination else { continue }
                (entity, property, rowsOf) = (e, p, destination)
            default: continue
            }
            let scope = numbers(sourceLayout, subtree(source, rowsOf))
            let values = try countValues(table.name, column.name, scope)
            if let warning = Self.droppedWarning("\(entity).\(property)", values: values) { warnings.append(warning) }
        }
    }

    mutating func warnDroppedTable(_ table: Table) throws {
        let rows = try count(table.name, nil)
        if rows > 0 {
            warnings.append(MigrationWarning(message: "table \(table.name) is dropped with its \(rows) row\(rows == 1 ? "" : "s") (entity \(table.entity) removed)", isDestructive: true))
        }
    }
}
