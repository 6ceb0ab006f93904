import DataModel
import Mapping
import SQLiteStore

/// Turns one segment's mapping into SQL steps over the store's layouts:
/// `ALTER TABLE` where SQLite can change a table without touching its rows, the
/// 12-step rebuild (https://www.sqlite.org/lang_altertable.html#otheralter) with a
/// set-based `INSERT … SELECT` where it cannot.
struct SegmentPlanner {
    let source: CompiledVersion
    let sourceLayout: StorageLayout
    let destination: CompiledVersion
    let destinationLayout: StorageLayout
    /// The segment's mapping. Further mappings into one entity (a merge) are copied
    /// with theirs put first for the time of their copy (`SegmentPlanner+Merges`).
    var mapping: MappingModel
    /// The further mapping being copied (`copyFurtherRows`), while it is.
    var copyingFurther: String?
    /// Counts rows: (table, entity numbers or nil for all).
    let count: (String, [Int]?) throws -> Int64
    /// Counts non-null values of a column among entity numbers.
    let countValues: (String, String, [Int]) throws -> Int64

    var steps: [MigrationStep] = []
    var checks: [MigrationCheck] = []
    /// What the stored data must satisfy (`SegmentPlanner+Requirements`).
    var requirements: [MigrationCheck] = []
    /// Tables altered in place with renamed columns (by source table name): each
    /// old column name with its new one. SQLite's `RENAME COLUMN` rewrites the
    /// indexes that name a column, so only an index whose name or definition
    /// changes is built again.
    var columnRenames: [String: [String: String]] = [:]
    /// Source tables moved under a temporary name before a swap of table names.
    var temporaryTableNames: [String: String] = [:]
    /// Unique indexes dropped before an in-place fill (the index steps do not drop them again).
    var droppedBeforeFill: Set<String> = []
    /// Join tables renamed in place: destination name → source name.
    var joinTablesRenamedFrom: [String: String] = [:]
    /// The entity numbers `Z_PRIMARYKEY` has rows for before this hop (nil: all).
    var storedKeyNumbers: Set<Int>?
    /// Rows of Core Data's persistent history (`ACHANGE`) in a store from Core Data,
    /// which names each changed object's entity by number; nil when there is none.
    var historyRows: Int64?
    var warnings: [MigrationWarning] = []
    /// Counts the rows of a source table for which an SQL condition (on alias `f`,
    /// with its arguments) holds; nil when the table does not exist yet (a later hop's).
    var countWhere: (String, String, [DatabaseValue]) throws -> Int64? = { _, _, _ in nil }
    /// For a later hop of a run: whether a source table is one an earlier hop makes
    /// (the store does not have it yet), so that its rows cannot be counted now.
    var tableMadeByEarlierHop: (String) throws -> Bool = { _ in false }
    /// A hop after the first of its run: the store's rows are not yet what it reads.
    var isLaterHop = false
    /// Destination tables whose rows a mapping file's filter thins out: references
    /// into them are cleaned after the rebuild.
    var filteredTables: Set<String> = []

    typealias Column = StorageLayout.Column
    typealias Table = StorageLayout.Table

    // MARK: Lookups

    func sourceEntity(for destinationEntity: String) -> CompiledEntity? {
        mapping.mapping(forDestination: destinationEntity)?.source.flatMap { source.entity(named: $0) }
    }

    /// The source entities a destination entity's objects come from: its own
    /// mapping's, then those of further mappings into it (a merge).
    func sourceEntities(for destinationEntity: String) -> [CompiledEntity] {
        mapping.mappings(forDestination: destinationEntity).compactMap {
            $0.source.flatMap { source.entity(named: $0) }
        }
    }

    func numbers(_ layout: StorageLayout, _ names: [String]) -> [Int] {
        names.compactMap { layout.entityNumbers[$0] }.sorted()
    }

    func subtree(_ version: CompiledVersion, _ name: String) -> [String] { version.subtree(of: name) }

    /// The source column holding a property of a source entity.
    func sourceColumn(_ entity: CompiledEntity, _ property: String) -> Column? {
        let table = sourceLayout.table(forEntity: entity.root)
        if let a = entity.attribute(named: property) {
            return table?.column(for: .attribute(entity: a.declaredIn, property: property))
        }
        if let r = entity.relationship(named: property) {
            return table?.column(for: .toOne(entity: r.declaredIn, relationship: property))
        }
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
        /// A mapping file's key path through several relationships
        /// (`$source.books.tags`): `SELECT DISTINCT … AS k1, … AS k2` over the pairs of
        /// each relationship on the way, chained; `table` is the first one's storage.
        case path(select: String, table: String)
    }

    func pairSource(_ entity: CompiledEntity, _ name: String) -> PairSource? {
        guard let relationship = entity.relationship(named: name), !relationship.declaration.isTransient else {
            return nil
        }
        let r = relationship.declaration
        if !r.isToMany {
            guard let column = sourceColumn(entity, name), let table = sourceLayout.table(forEntity: entity.root) else {
                return nil
            }
            return .column(
                table: table.name, column: column.name, numbers: numbers(sourceLayout, subtree(source, entity.name)))
        }
        if let destination = source.entity(named: r.destination),
            let (table, column, order) = sourceLayout.reverseColumn(
                for: relationship, destinationRoot: destination.root)
        {
            return .reverseColumn(table: table.name, column: column, order: order)
        }
        guard let (table, mine, theirs) = sourceLayout.joinTable(for: relationship) else { return nil }
        return .join(
            table: table.name, mine: mine, theirs: theirs,
            order: table.column(for: .order(entity: relationship.declaredIn, relationship: name))?.name)
    }

    /// Where a destination relationship's pairs come from.
    struct FoundPairs: Equatable {
        /// Their storage in the source.
        let source: PairSource
        /// True when they are the inverse's pairs, read the other way round.
        let reversed: Bool
    }

    /// The source of the pairs of a destination relationship: its own mapping, or
    /// its inverse's reversed (when only the inverse existed before).
    func pairs(for entity: CompiledEntity, _ relationship: CompiledRelationship) -> FoundPairs? {
        if let path = pathPairs(entity, relationship) { return FoundPairs(source: path, reversed: false) }
        if let inverse = relationship.declaration.inverse,
            let owner = destination.entity(named: relationship.inverseEntity ?? ""),
            let ownerRelationship = owner.relationship(named: inverse), let path = pathPairs(owner, ownerRelationship)
        {
            return FoundPairs(source: path, reversed: true)
        }
        if let sourceEntity = sourceEntity(for: entity.name), let from = sourceName(entity.name, relationship.name),
            let pairs = pairSource(sourceEntity, from)
        {
            return FoundPairs(source: pairs, reversed: false)
        }
        if let inverse = relationship.declaration.inverse, let owner = relationship.inverseEntity,
            let ownerSource = sourceEntity(for: owner), let from = sourceName(owner, inverse),
            let pairs = pairSource(ownerSource, from)
        {
            return FoundPairs(source: pairs, reversed: true)
        }
        return nil
    }

    /// The pairs of a to-many the mapping file fills through a key path of several
    /// relationships (a many-to-many, or a to-many without an inverse: MappingFiles.md,
    /// "Relationships"): each relationship's pairs in the source store, chained on the
    /// key of the object in between. Both ends keep their keys (the resolver checked
    /// that the named entity mapping carries the objects reached over), so the source
    /// pairs are the destination's.
    func pathPairs(_ entity: CompiledEntity, _ relationship: CompiledRelationship) -> PairSource? {
        guard relationship.declaration.isToMany, let sourceEntity = sourceEntity(for: entity.name),
            case .expression(let keys, _)? = mapping.mapping(forDestination: entity.name)?.property(relationship.name)?
                .source,
            keys.hasPrefix("$source.")
        else { return nil }
        var current = sourceEntity
        var selects: [String] = []
        var first: String?
        for name in keys.dropFirst(8).split(separator: ".").map(String.init) {
            guard let hop = current.relationship(named: name), let pairs = pairSource(current, name),
                let next = source.entity(named: hop.declaration.destination)
            else { return nil }
            selects.append(pairSelect(pairs, reversed: false))
            first = first ?? Self.storageTable(pairs)
            current = next
        }
        guard selects.count > 1, let first else { return nil }
        var from = "(\(selects[0])) AS p0"
        for index in selects.indices.dropFirst() {
            from += " JOIN (\(selects[index])) AS p\(index) ON p\(index).k1 = p\(index - 1).k2"
        }
        return .path(select: "SELECT DISTINCT p0.k1 AS k1, p\(selects.count - 1).k2 AS k2 FROM \(from)", table: first)
    }

    /// The table that holds a relationship's pairs.
    static func storageTable(_ source: PairSource) -> String {
        switch source {
        case .column(let t, _, _), .reverseColumn(let t, _, _), .join(let t, _, _, _), .path(_, let t): t
        }
    }

    /// A destination table built anew under `buildName` (its own name, or
    /// `MM_NEW_…` while the old table of that name still exists); for a join
    /// table, where its pairs come from (no part: created empty).
    struct TableBuild {
        let table: Table
        let buildName: String
        var parts: [JoinPart] = []
    }

    /// The source property a destination property is copied from.
    func sourceName(_ entity: String, _ property: String) -> String? {
        switch mapping.mapping(forDestination: entity)?.property(property)?.source {
        case .copy(let from)?, .convert(let from, _)?: from
        default: nil
        }
    }

    // MARK: Planning

    /// How the segment treats each destination table: built anew, altered in
    /// place, kept, or (join tables) renamed in place.
    struct TablePlan {
        /// Destination tables whose source table of the same name is replaced.
        var rebuilt: Set<String> = []
        var newTables: [TableBuild] = []
        /// Entity tables SQLite can change in place.
        var fastPath: [Table] = []
        var keptJoins: Set<String> = []
        var renamedJoins: [JoinRename] = []
        var newJoins: [TableBuild] = []

        /// Every table built anew, entity tables first.
        var built: [TableBuild] { newTables + newJoins }
    }

    /// The segment's pipeline, top-down: which tables are built anew, altered or
    /// kept; the new tables built; the policies; what is replaced dropped and the
    /// new tables moved into place; the in-place changes; the indexes; the
    /// bookkeeping and the data's requirements.
    mutating func plan() throws {
        try refuseReplacedEntities()
        var tables = try entityTables()
        joinTables(into: &tables)
        warnSharedDestinations()
        try warnLostPairs()
        try warnLostKeyColumns(tables)
        warnExternalStorage()
        // 0. Objects merged into a table from another one take keys of their own there.
        try rekeyMergedObjects()
        // References to objects the relationship can no longer hold go first.
        try clearLostTargets()
        try clearMovedDownValues(tables)

        // 1. Build every new table from the old ones (nothing is dropped yet).
        for new in tables.newTables {
            try build(new.table, as: new.buildName)
        }
        for join in tables.newJoins {
            try buildJoin(join.table, as: join.buildName, parts: join.parts)
        }
        // 1b. Policies: after every new table exists, while the old ones still do.
        let buildTables = Dictionary(
            tables.built.map { ($0.table.name, $0.buildName) }, uniquingKeysWith: { a, _ in a })
        try policyStep(buildTables: buildTables)
        try carryOtherEntitiesColumns(buildTables: buildTables)
        // 2. Drop what is replaced or gone, then move new tables into place.
        try dropReplacedTables(tables)
        // 3. Tables SQLite can change in place.
        try alterInPlace(tables)
        // 3b. References into what a policy made follow its associations.
        try repointThroughAssociations()
        // 4. Indexes: all of a new table's; the difference on altered and kept ones.
        let builtNames = Set(tables.built.map(\.table.name))
        let paired = try oneToOneSteps()
        try entityTypeSteps(rebuilt: builtNames.union(paired))
        try indexSteps(tables)
        historyStep()
        entityNumberStep()
        addKeyCounterChecks()
        addRequirements()
        try warnUnreadEntities()
    }

    /// Which source tables feed each destination entity table, and so whether it
    /// is new, altered in place or rebuilt; merging hierarchies is refused.
    func entityTables() throws -> TablePlan {
        var tables = TablePlan()
        for table in destinationLayout.tables where table.joinRelationship == nil {
            let hierarchy = destination.entities.filter { $0.root == table.entity }
            let sourceTables = Set(
                hierarchy.compactMap { sourceEntity(for: $0.name) }.compactMap {
                    sourceLayout.table(forEntity: $0.root)?.name
                })
            // Objects merged in from other tables take new keys first (`rekeyMergedObjects`).
            let merges = try furtherMappingsFeeding(table)
            if sourceTables.count > 1 {
                throw PlanningError(
                    .noPath,
                    """
                    table \(table.name) would receive rows of \(sourceTables.sorted().joined(separator: " and ")); \
                    merging hierarchies is not supported
                    """)
            }
            let additional = try additionalMappingsFeeding(table)
            if sourceTables.isEmpty || additional || merges {
                let clash = sourceLayout.table(named: table.name) != nil
                if clash { tables.rebuilt.insert(table.name) }
                tables.newTables.append(
                    TableBuild(table: table, buildName: clash ? "MM_NEW_" + table.name : table.name))
            } else if try canAlter(table, from: sourceLayout.table(named: sourceTables.first!)!) {
                tables.fastPath.append(table)
            } else {
                tables.rebuilt.insert(table.name)
                tables.newTables.append(TableBuild(table: table, buildName: "MM_NEW_" + table.name))
            }
        }
        return tables
    }

    /// Join tables: kept when identical, renamed in place when only names change,
    /// otherwise built anew.
    func joinTables(into tables: inout TablePlan) {
        for table in destinationLayout.tables where table.joinRelationship != nil {
            let names = table.joinRelationship!.split(separator: ".").map(String.init)
            guard let entity = destination.entity(named: names[0]),
                let relationship = entity.relationship(named: names[1])
            else { continue }
            let parts = joinParts(for: entity, relationship) + inverseOnlyJoinParts(of: entity, relationship, in: table)
            // Kept or renamed only when every owner reads one unfiltered source.
            let found = parts.count == 1 && parts[0].owners == nil && parts[0].members == nil ? parts[0].found : nil
            if case .join(let name, let mine, let theirs, let order)? = found?.source, found?.reversed == false,
                name == table.name,
                let old = sourceLayout.table(named: name), old.columns.map(\.name) == table.columns.map(\.name),
                mine == table.columns[0].name, theirs == table.columns[1].name,
                order
                    == table.column(for: .order(entity: relationship.declaredIn, relationship: relationship.name))?.name
            {
                tables.keptJoins.insert(name)
                continue
            }
            if parts.count <= 1,
                let rename = joinRename(
                    table, found: found, claimed: tables.keptJoins.union(tables.renamedJoins.map(\.old.name)))
            {
                tables.renamedJoins.append(rename)
                continue
            }
            let exists = sourceLayout.table(named: table.name) != nil
            tables.newJoins.append(
                TableBuild(table: table, buildName: exists ? "MM_NEW_" + table.name : table.name, parts: parts))
        }
    }

    /// To-many relationships without an inverse keep one owner per destination
    /// row (Core Data's storage): pairs that shared a destination lose all but one.
    mutating func warnSharedDestinations() {
        for entity in destination.entities {
            for relationship in entity.relationships where relationship.declaredIn == entity.name {
                let r = relationship.declaration
                guard r.isToMany, r.inverse == nil, !r.isTransient, let found = pairs(for: entity, relationship) else {
                    continue
                }
                let shared: Bool =
                    switch found.source {
                    case .column, .join, .path: true
                    case .reverseColumn: false
                    }
                if shared {
                    warnings.append(
                        MigrationWarning(
                            message: """
                                \(entity.name).\(r.name) has no inverse: each \(r.destination) row keeps the key of \
                                one \(entity.name) (as Core Data stores it); a \(r.destination) shared by several \
                                keeps the one with the lowest primary key
                                """, isDestructive: true, subject: "\(entity.name).\(r.name)"))
                }
            }
        }
    }

    /// Binary data no longer allowing external storage: what Core Data kept in
    /// external files stays a reference (the files are not read into the store).
    mutating func warnExternalStorage() {
        for entity in destination.entities {
            for attribute in entity.attributes
            where attribute.declaredIn == entity.name && attribute.declaration.type == .binary
                && !attribute.declaration.allowsExternalStorage
            {
                guard let sourceEntity = sourceEntity(for: entity.name),
                    let from = sourceName(entity.name, attribute.name),
                    sourceEntity.attribute(named: from)?.declaration.allowsExternalStorage == true
                else { continue }
                warnings.append(
                    MigrationWarning(
                        message: """
                            \(entity.name).\(attribute.name) no longer allows external storage: \
                            values Core Data kept in files beside the store stay references to those files
                            """, isDestructive: true, subject: "\(entity.name).\(attribute.name)"))
            }
        }
    }

    /// The policy step: one for the hop, so that its stages span every custom
    /// mapping, in the mapping file's order.
    mutating func policyStep(buildTables: [String: String]) throws {
        let order = mapping.fileOrder ?? []
        let custom = mapping.entityMappings.filter { $0.kind == .custom }.enumerated().sorted { a, b in
            let x = order.firstIndex(of: a.element.destination ?? "") ?? Int.max,
                y = order.firstIndex(of: b.element.destination ?? "") ?? Int.max
            return x != y ? x < y : a.offset < b.offset
        }.map(\.element)
        var invocations: [PolicyInvocation] = []
        var policyRows: Int64 = 0
        for entityMapping in custom {
            guard let policy = entityMapping.policy, let sourceName = entityMapping.source,
                let destinationName = entityMapping.destination,
                let sourceEntity = source.entity(named: sourceName),
                let table = sourceLayout.table(forEntity: sourceEntity.root),
                let number = sourceLayout.entityNumbers[sourceName]
            else { continue }
            policyRows = policyRows.adding(saturating: try count(table.name, [number]))
            invocations.append(
                PolicyInvocation(
                    policy: policy, mappingName: entityMapping.name, sourceEntity: sourceName,
                    destinationEntity: destinationName, buildTables: buildTables))
            try warnDropped(entityMapping, sourceEntity: sourceEntity, numbers: [number], policy: true)
        }
        if !invocations.isEmpty {
            let names = invocations.map { "\($0.policy): \($0.sourceEntity) → \($0.destinationEntity)" }.joined(
                separator: "; ")
            steps.append(
                .policy(
                    MigrationStep.PolicyStage(
                        summary: invocations.count == 1 ? "policy \(names)" : "policies \(names) (stage by stage)",
                        table: destinationLayout.table(
                            forEntity: destination.entity(named: invocations[0].destinationEntity)!.root)?.name,
                        policies: invocations, cost: .policy(rows: policyRows))))
        }
    }

    /// Drops what is replaced or gone, then moves the new tables into place.
    mutating func dropReplacedTables(_ tables: TablePlan) throws {
        for table in sourceLayout.tables {
            let replaced =
                tables.rebuilt.contains(table.name) || tables.newJoins.contains { $0.table.name == table.name }
            // Kept: a table altered in place comes from it (a destination table of the
            // same name may come from another one, renamed onto a removed entity's name).
            let kept =
                tables.fastPath.contains { (tableRenamedFrom($0) ?? $0.name) == table.name }
                || tables.keptJoins.contains(table.name)
                || tables.renamedJoins.contains { $0.old.name == table.name }
            guard replaced || !kept else { continue }
            if replaced && kept {
                // A swap (`C: { source: D }`, `D: { source: C }`): the new D takes this
                // name while the old D is altered in place into C: move it aside.
                moveAside(table)
                continue
            }
            let fed = destination.entities.contains {
                sourceEntity(for: $0.name).flatMap { sourceLayout.table(forEntity: $0.root)?.name } == table.name
            }
            if !replaced, !fed, table.joinRelationship == nil { try warnDroppedTable(table) }
            steps.append(
                .dropTable(
                    .init(
                        summary: "drop \(table.name)", sql: ["DROP TABLE \(SQLText.q(table.name))"],
                        cost: .constant, table: table.name)))
        }
        for new in tables.built where new.buildName != new.table.name {
            steps.append(
                .renameTable(
                    .init(
                        summary: "move the rebuilt \(new.table.name) into place",
                        sql: ["ALTER TABLE \(SQLText.q(new.buildName)) RENAME TO \(SQLText.q(new.table.name))"],
                        cost: .constant, table: new.table.name)))
        }
    }

    /// Renames `table` to a temporary name, out of the way of a table that takes its
    /// name in this hop (a swap, a chain of renames); later steps find it there.
    mutating func moveAside(_ table: Table) {
        let temporary = "MM_MOVING_" + table.name
        temporaryTableNames[table.name] = temporary
        steps.append(
            .renameTable(
                .init(
                    summary: "move table \(table.name) out of the way (renamed below)",
                    sql: ["ALTER TABLE \(SQLText.q(table.name)) RENAME TO \(SQLText.q(temporary))"], cost: .constant,
                    table: table.name)))
    }

    /// The tables SQLite can change in place. A table renamed onto a name another
    /// renamed table still has (a swap, a chain) first moves that one out of the
    /// way under a temporary name. Then references to objects a mapping file's
    /// filter left out are removed.
    mutating func alterInPlace(_ tables: TablePlan) throws {
        let renamedAwayTables = Set(tables.fastPath.compactMap { tableRenamedFrom($0) })
        for table in tables.fastPath where tableRenamedFrom(table) != nil && renamedAwayTables.contains(table.name) {
            moveAside(table)
        }
        for table in tables.fastPath {
            try alter(table)
        }
        for rename in tables.renamedJoins {
            renameJoin(rename)
        }
        for table in filteredTables.sorted() {
            removeReferences(into: table)
        }
    }

    /// Index steps: all of a new table's; the difference on altered and kept
    /// ones, as each source index stands after the in-place renames of its table
    /// and columns.
    mutating func indexSteps(_ tables: TablePlan) throws {
        let builtNames = Set(tables.built.map(\.table.name))
        let destinationNames = Set(destinationLayout.tables.map(\.name))
        // Tables created empty: their indexes cost nothing.
        let emptyTables = Set(
            tables.newTables
                .filter { new in
                    !destination.entities.contains { $0.root == new.table.entity && sourceEntity(for: $0.name) != nil }
                }
                .map(\.table.name) + tables.newJoins.filter { $0.parts.isEmpty }.map(\.table.name))
        // A source index as it stands after the in-place renames of its table and columns.
        let renamedTables = Dictionary(
            tables.fastPath.compactMap { table in tableRenamedFrom(table).map { ($0, table.name) } }
                + tables.renamedJoins.map { ($0.old.name, $0.new.name) }, uniquingKeysWith: { a, _ in a })
        func afterRenames(_ index: StorageLayout.Index) -> StorageLayout.Index {
            var index = index.renamingColumns(columnRenames[index.table] ?? [:])
            index.table = renamedTables[index.table] ?? index.table
            return index
        }
        let oldIndexes = Dictionary(
            sourceLayout.indexes.map { ($0.name, afterRenames($0)) }, uniquingKeysWith: { a, _ in a })
        let newIndexes = Dictionary(destinationLayout.indexes.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        // A table renamed in place keeps its indexes under their old names: drop them
        // (the loop below creates them under the new table's names).
        let renamedAway = Set(tables.fastPath.compactMap { tableRenamedFrom($0) })
        // Indexes that moved with a join table renamed in place, as they now stand: one
        // the destination still has (by definition) stays under its store name, as
        // in Core Data's migrated stores (`Z_14USERS_Z_22USERS1_INDEX` on `Z_15USERS`).
        let renamedJoinSources = Set(tables.renamedJoins.map(\.old.name))
        let movedIndexes = sourceLayout.indexes.filter { renamedJoinSources.contains($0.table) }.map(afterRenames)
        for index in sourceLayout.indexes
        where renamedAway.contains(index.table) || renamedJoinSources.contains(index.table)
            || (!builtNames.contains(index.table) && destinationNames.contains(index.table))
        {
            if renamedJoinSources.contains(index.table) {
                // Kept when the destination has its definition; otherwise dropped, as
                // an index the version no longer has is on any table.
                if destinationLayout.indexes.contains(where: { afterRenames(index).hasDefinition(of: $0) }) { continue }
                steps.append(
                    .dropIndex(
                        .init(
                            summary: "drop index \(index.name)", sql: ["DROP INDEX IF EXISTS \(SQLText.q(index.name))"],
                            cost: .constant, table: afterRenames(index).table)))
                continue
            }
            // An index of a table renamed away moves with it under its old name, which
            // the table now taking that name may need: drop it whatever its definition.
            if (newIndexes[index.name].map({ SchemaSQL.createIndex($0) }) != SchemaSQL.createIndex(afterRenames(index))
                || tableRenamed(index.table)
                || renamedAway.contains(index.table)) && !droppedBeforeFill.contains(index.name)
            {
                steps.append(
                    .dropIndex(
                        .init(
                            summary: "drop index \(index.name)", sql: ["DROP INDEX IF EXISTS \(SQLText.q(index.name))"],
                            cost: .constant, table: index.table)))
            }
        }
        for index in destinationLayout.indexes {
            let fresh = builtNames.contains(index.table)
            if !fresh, movedIndexes.contains(where: { $0.hasDefinition(of: index) }) { continue }
            let changed = oldIndexes[index.name].map { SchemaSQL.createIndex($0) } != SchemaSQL.createIndex(index)
            guard fresh || changed || tableRenamedInto(index.table) else { continue }
            let rows = emptyTables.contains(index.table) ? 0 : try countAfter(index.table)
            steps.append(
                .createIndex(
                    .init(
                        summary: "create \(index.isUnique ? "unique " : "")index \(index.name) on \(index.table)",
                        sql: [SchemaSQL.createIndex(index)],
                        cost: emptyTables.contains(index.table) ? .constant : .indexBuild(rows: rows),
                        table: index.table,
                        duplicates: index.isUnique ? duplicatesCheck(index) : nil)))
        }
    }
}
