/// Builds the `StorageLayout` of a compiled version with Core Data's naming:
/// `Z<ENTITY>` tables, `Z<PROPERTY>` columns (numeric suffixes on clashes within a
/// table), `Z_<n><RELATIONSHIP>` join tables, `Z_FOK_` order columns, and indexes
/// named as Core Data names them (`ZCAR_ZOWNER_INDEX`, `Z_Car_UNIQUE_numberPlate`).
struct LayoutBuilder {
    let entities: [CompiledEntity]
    let byName: [String: CompiledEntity]
    let numbers: [String: Int]
    /// The tables (and their columns) of the store the layout is for, when it
    /// exists: its own naming wins where Core Data's rule is not known for sure.
    var existing: [String: Set<String>]?
    /// Leave out entity columns (`Z<n>_<NAME>`) the existing tables lack: for
    /// reading a store as it is, not for a layout to migrate to.
    var omitsMissingEntityColumns = false
    /// Declare decimal columns `DECIMAL`, as Core Data does, rather than `TEXT`
    /// (for stores that came from Core Data).
    var coreDataTypes = false

    /// Each entity's position in Core Data's default numbering of this version
    /// (which join table side a pair between two tables takes follows it, not the
    /// store's numbers).
    let defaultRanks: [String: Int]

    init(entities: [CompiledEntity], entityNumbers: [String: Int]? = nil, existing: [String: Set<String>]? = nil) {
        self.entities = entities
        self.existing = existing
        byName = Dictionary(uniqueKeysWithValues: entities.map { ($0.name, $0) })
        let order = ModelCompiler.defaultEntityOrder(entities.map { ($0.name, $0.parent) })
        defaultRanks = Dictionary(uniqueKeysWithValues: order.enumerated().map { ($0.element, $0.offset + 1) })
        numbers = entityNumbers ?? defaultRanks
    }

    /// The SQL type a column of this attribute type is declared with. Decimals are
    /// declared TEXT so that SQLite's NUMERIC affinity cannot round them (it keeps
    /// 15 digits); Core Data's own stores say DECIMAL and are read as they are.
    static func columnType(_ type: AttributeType) -> String {
        switch type {
        case .integer16, .integer32, .integer64, .boolean: "INTEGER"
        case .decimal: "TEXT"
        case .double, .float: "FLOAT"
        case .string, .uri: "VARCHAR"
        case .date: "TIMESTAMP"
        case .binary, .uuid, .transformable, .composite: "BLOB"
        }
    }

    /// Where a column stands in its table, as Core Data writes tables (AddressBook's
    /// `ZABCDRECORD`, Kik's `ZKIKMESSAGE`): `Z_PK`, `Z_ENT`, `Z_OPT`; then by type
    /// class (integers and keys; dates, floats and decimals; strings; blobs); within
    /// a class by entity number; within an entity attributes by name, then
    /// relationships by name, each key followed by its `Z<n>_` entity column and its
    /// `Z_FOK_` order column.
    private func sortKey(_ column: StorageLayout.Column) -> (Int, Int, Int, String, Int) {
        func number(_ entity: String) -> Int { numbers[entity] ?? Int.max }
        switch column.role {
        case .primaryKey: return (-1, 0, 0, "", 0)
        case .entityNumber: return (-1, 0, 0, "", 1)
        case .changeCounter: return (-1, 0, 0, "", 2)
        case .attribute(let entity, let property):
            let typeClass =
                switch column.type {
                case "INTEGER": 0
                case "FLOAT", "TIMESTAMP", "DECIMAL", "TEXT": 1
                case "VARCHAR": 2
                default: 3
                }
            return (typeClass, number(entity), 0, property, 0)
        case .toOne(let entity, let relationship):
            return (0, number(entity), 1, relationship, 0)
        case .toOneEntity(let entity, let relationship):
            return (0, number(entity), 1, relationship, 1)
        case .toManyKey(let entity, let relationship):
            let destination = byName[entity]?.relationship(named: relationship)?.declaration.destination ?? entity
            return (0, number(destination), 1, relationship, 0)
        case .order(let entity, let relationship):
            guard let r = byName[entity]?.relationship(named: relationship) else {
                return (0, Int.max, 1, relationship, 2)
            }
            if let inverse = r.declaration.inverse, let owner = r.inverseEntity {
                return (0, number(owner), 1, inverse, 2)
            }
            return (0, number(r.declaration.destination), 1, relationship, 2)
        case .joinKey:
            return (0, 0, 0, "", 0)
        }
    }

    /// What made a table or an index: where a message about it points in the model.
    enum Origin: Equatable {
        /// An entity's table (its root's), or the table's `Z_ENT` index.
        case entity(String)
        /// An indexed attribute's index.
        case attribute(entity: String, name: String)
        /// A join table, or the index of a relationship's key column.
        case relationship(entity: String, name: String)
        /// The unique index of an entity's uniqueness constraint, by position.
        case uniqueness(entity: String, position: Int)
        /// An `indexes:` entry of an entity, by position.
        case index(entity: String, position: Int)
    }

    func build() -> StorageLayout { buildTracingOrigins().layout }

    /// The layout, with what made each of its tables and indexes (same order), so
    /// that a name SQLite would refuse can be reported at the model text.
    ///
    /// Every lookup below goes through a dictionary made once: a scan of the
    /// entities per table or of the columns per constraint made 10,000 entities
    /// quadratic.
    func buildTracingOrigins() -> (layout: StorageLayout, tables: [Origin], indexes: [Origin]) {
        let order = numbers.sorted { $0.value < $1.value }.map(\.key)
        var draft = LayoutDraft()
        startEntityTables(order, &draft)
        addPropertyColumns(order, &draft)
        addOrderColumns(order, &draft)
        addInverselessToManyKeys(order, &draft)
        appendEntityTables(&draft)
        chooseJoinTables(order, &draft)
        appendJoinTables(&draft)
        appendEntityTableIndexes(&draft)
        return (
            StorageLayout(entityNumbers: numbers, tables: draft.tables, indexes: draft.indexes), draft.tableOrigins,
            draft.indexOrigins
        )
    }

    // Entity tables: one per root, holding the columns of the whole hierarchy.
    // Every stored property of the hierarchy takes a name in the root table's
    // namespace, entity by entity in number order, names sorted within an
    // entity; to-many relationships take one too although they have no column
    // (AddressBook: `ZCONTAINER`, `ZCONTAINER1`, `ZCONTAINER2` on three
    // subentities; join columns `Z_19PARENTGROUPS` and `Z_19PARENTGROUPS1`).

    /// Root tables first, with their three key columns: in a store, a subentity
    /// may have a lower number than a parent added above it later.
    private func startEntityTables(_ order: [String], _ draft: inout LayoutDraft) {
        for name in order {
            guard let entity = byName[name] else { continue }
            draft.entitiesByRoot[entity.root, default: []].append(name)
            guard entity.parent == nil else { continue }
            let table = "Z" + entity.root.uppercased()
            draft.tableOrder.append(table)
            draft.rootOfTable[table] = entity.name
            draft.usedNames[table] = ["Z_PK", "Z_ENT", "Z_OPT"]
            draft.columnsByTable[table] = [
                .init(name: "Z_PK", type: "INTEGER", role: .primaryKey),
                .init(name: "Z_ENT", type: "INTEGER", role: .entityNumber),
                .init(name: "Z_OPT", type: "INTEGER", role: .changeCounter),
            ]
        }
    }

    /// Every entity's own stored properties, in name order, take their names in
    /// the root table; attributes and to-ones get their columns.
    private func addPropertyColumns(_ order: [String], _ draft: inout LayoutDraft) {
        for name in order {
            guard let entity = byName[name] else { continue }
            let table = "Z" + entity.root.uppercased()
            var own: [(name: String, column: StorageLayout.Column?, relationship: CompiledRelationship?)] = []
            // Composite attributes get no column: how Core Data lays them out is not
            // known here, and no store is made for a version that has one.
            for a in entity.attributes
            where a.declaredIn == name && !a.declaration.isTransient && a.declaration.type != .composite {
                let type =
                    coreDataTypes && a.declaration.type == .decimal ? "DECIMAL" : Self.columnType(a.declaration.type)
                own.append(
                    (a.name, .init(name: a.name, type: type, role: .attribute(entity: name, property: a.name)), nil))
                if a.declaration.isIndexed { draft.indexedAttributes.insert("\(name).\(a.name)") }
            }
            for r in entity.relationships where r.declaredIn == name && !r.declaration.isTransient {
                own.append(
                    (
                        r.name,
                        r.declaration.isToMany
                            ? nil
                            : .init(name: r.name, type: "INTEGER", role: .toOne(entity: name, relationship: r.name)), r
                    ))
            }
            own.sort { $0.name.utf16.lexicographicallyPrecedes($1.name.utf16) }
            for (property, column, relationship) in own {
                let columnName = draft.unique("Z" + property.uppercased(), in: table)
                draft.namesInTable[table, default: []].append(columnName)
                // Only relationships' names are looked up again (order columns, join
                // tables): no entry per attribute.
                if relationship != nil { draft.propertyNames["\(name).\(property)"] = columnName }
                guard var column else { continue }
                column.name = columnName
                draft.columnsByTable[table, default: []].append(column)
                addEntityNumberColumn(of: column, relationship, entity: name, table: table, &draft)
            }
        }
    }

    /// A to-one into an entity with subentities also keeps the destination row's
    /// entity number (AddressBook: `ZCONTACT`, `Z22_CONTACT`).
    private func addEntityNumberColumn(
        of column: StorageLayout.Column, _ relationship: CompiledRelationship?, entity name: String, table: String,
        _ draft: inout LayoutDraft
    ) {
        let columnName = column.name
        if case .toOne(_, let property) = column.role, let r = relationship,
            let destination = byName[r.declaration.destination], !destination.subentities.isEmpty,
            let number = numbers[destination.name],
            !omitsMissingEntityColumns
                || (existing?[table].map({ $0.contains("Z\(number)_" + columnName.dropFirst()) }) ?? true)
        {
            draft.columnsByTable[table, default: []].append(
                .init(
                    name: draft.unique("Z\(number)_" + columnName.dropFirst(), in: table), type: "INTEGER",
                    role: .toOneEntity(entity: name, relationship: property)))
        }
    }

    /// Order columns of ordered one-to-many relationships live with the to-one
    /// side, named after its column (`ZPARENTLIST1` → `Z_FOK_PARENTLIST1`).
    private func addOrderColumns(_ order: [String], _ draft: inout LayoutDraft) {
        for name in order {
            guard let entity = byName[name] else { continue }
            for r in entity.relationships
            where r.declaredIn == name && r.declaration.keepsOrder && !r.isManyToMany && !r.declaration.isTransient {
                guard let inverse = r.declaration.inverse, let owner = r.inverseEntity,
                    let destination = byName[r.declaration.destination]
                else { continue }
                let table = "Z" + destination.root.uppercased()
                let base =
                    draft.propertyNames["\(owner).\(inverse)"].map { "Z_FOK_" + $0.dropFirst() } ?? "Z_FOK_"
                    + inverse.uppercased()
                let column = StorageLayout.Column(
                    name: draft.unique(base, in: table), type: "INTEGER",
                    role: .order(entity: name, relationship: r.name))
                draft.columnsByTable[table, default: []].append(column)
            }
        }
    }

    /// To-many relationships without an inverse: the source row's key lives on
    /// the destination row, `Z<n><NAME>` (Core Data: `ZPARAMETER.Z16PARAMETERS`).
    private func addInverselessToManyKeys(_ order: [String], _ draft: inout LayoutDraft) {
        for name in order {
            guard let entity = byName[name] else { continue }
            for r in entity.relationships
            where r.declaredIn == name && r.declaration.isToMany && r.declaration.inverse == nil
                && !r.declaration.isTransient
            {
                guard let destination = byName[r.declaration.destination], let number = numbers[name] else { continue }
                let table = "Z" + destination.root.uppercased()
                // A store written before this rule keeps such pairs in a join table
                // `Z_<n><NAME>`: read it as it is (the next migration moves them).
                if omitsMissingEntityColumns, let existing,
                    existing[table]?.contains("Z\(number)" + r.name.uppercased()) != true,
                    existing["Z_\(number)\(r.name.uppercased())"] != nil
                {
                    draft.legacyJoins.append((r, name))
                    continue
                }
                let key = draft.unique("Z\(number)" + r.name.uppercased(), in: table)
                draft.columnsByTable[table, default: []].append(
                    .init(name: key, type: "INTEGER", role: .toManyKey(entity: name, relationship: r.name)))
                if r.declaration.keepsOrder {
                    draft.columnsByTable[table, default: []].append(
                        .init(
                            name: draft.unique("Z_FOK_" + key.dropFirst(), in: table), type: "INTEGER",
                            role: .order(entity: name, relationship: r.name)))
                }
            }
        }
    }

    /// The entity tables, each with its columns in Core Data's order.
    private func appendEntityTables(_ draft: inout LayoutDraft) {
        for table in draft.tableOrder {
            let root = draft.rootOfTable[table]!
            // Each column's key once, not once per comparison (a key may look up a
            // relationship).
            // Spelled out with its types: as one generic chain over five-element tuples
            // this expression took the type checker over 5 s of every clean build.
            typealias Keyed = (key: (Int, Int, Int, String, Int), offset: Int, column: StorageLayout.Column)
            var keyed: [Keyed] = []
            for (offset, column) in (draft.columnsByTable[table] ?? []).enumerated() {
                keyed.append((key: sortKey(column), offset: offset, column: column))
            }
            keyed.sort { (a: Keyed, b: Keyed) -> Bool in a.key != b.key ? a.key < b.key : a.offset < b.offset }
            let columns: [StorageLayout.Column] = keyed.map { $0.column }
            draft.tables.append(
                .init(name: table, entity: root, joinRelationship: nil, columns: columns, primaryKey: ["Z_PK"]))
            draft.tableOrigins.append(.entity(root))
        }
    }

    /// Join tables: one per many-to-many pair, named after the side
    /// `namesJoinTable` picks. Within one table, Core Data meets the properties in
    /// the order of a CoreFoundation hash table of their column names
    /// (`CoreDataHashOrder`, Docs/StoreNaming.md): the position of each
    /// relationship's name in its table's order.
    private func chooseJoinTables(_ order: [String], _ draft: inout LayoutDraft) {
        var hashPositions: [String: Int] = [:]
        for (table, names) in draft.namesInTable {
            let positions = Dictionary(
                CoreDataHashOrder.iterationOrder(of: names).enumerated().map { ($0.element, $0.offset) },
                uniquingKeysWith: { first, _ in first })
            for entityName in draft.entitiesByRoot[draft.rootOfTable[table] ?? ""] ?? [] {
                for r in byName[entityName]?.relationships ?? [] where r.declaredIn == entityName && r.isManyToMany {
                    if let column = draft.propertyNames["\(entityName).\(r.name)"], let position = positions[column] {
                        hashPositions["\(entityName).\(r.name)"] = position
                    }
                }
            }
        }
        for name in order {
            guard let entity = byName[name] else { continue }
            for r in entity.relationships where r.declaredIn == name && r.isManyToMany && !r.declaration.isTransient {
                if let inverseName = r.declaration.inverse, let inverseOwner = r.inverseEntity,
                    !namesJoinTable((name, r.name), over: (inverseOwner, inverseName), hashPositions: hashPositions)
                {
                    continue
                }
                draft.joins.append((r, name))
            }
        }
    }

    /// The join tables with their index. The column holding a join's destination
    /// keys (`Z_<n>` + the relationship's column name) is unique across every join
    /// table, claimed in the order of the owning entities' names: Wire's stores
    /// Core Data created hold `Z_12USERS (Z_12REACTIONS, Z_14USERS)` for
    /// Reaction.users and `Z_9USERS (Z_9SYSTEMMESSAGES, Z_14USERS1)` for
    /// SystemMessage.users, although neither hierarchy has a second `users` (and
    /// Reaction sorts first, though it has the higher number).
    private func appendJoinTables(_ draft: inout LayoutDraft) {
        var claimed: Set<String> = []
        var destinationColumns: [String: String] = [:]
        for (r, name) in (draft.joins + draft.legacyJoins).sorted(by: { ($0.1, $0.0.name) < ($1.1, $1.0.name) }) {
            let base =
                "Z_\(numbers[r.declaration.destination] ?? 0)"
                + joinColumnBase(name, r.name, owner: name, propertyNames: draft.propertyNames)
            var candidate = base
            var suffix = 1
            while claimed.contains(candidate) {
                candidate = "\(base)\(suffix)"
                suffix += 1
            }
            claimed.insert(candidate)
            destinationColumns["\(name).\(r.name)"] = candidate
        }
        for (r, name) in draft.joins + draft.legacyJoins {
            let propertyNames = draft.propertyNames
            let table = joinTable(
                for: r, of: name, propertyNames: propertyNames,
                destinationColumn: destinationColumns["\(name).\(r.name)"],
                unique: { draft.unique($0, in: $1) })
            draft.tables.append(table)
            draft.tableOrigins.append(.relationship(entity: name, name: r.name))
            // Core Data's index on a join table: the destination's keys, then the owner's.
            draft.addIndex(
                .init(
                    name: "\(table.name)_\(table.columns[1].name)_INDEX", table: table.name,
                    columns: [
                        .init(name: table.columns[1].name, isDescending: false),
                        .init(name: table.columns[0].name, isDescending: false),
                    ],
                    isUnique: false, condition: nil),
                origin: .relationship(entity: name, name: r.name))
        }
    }

    /// Indexes of entity tables: relationship keys, `Z_ENT` of a hierarchy,
    /// indexed attributes, then each entity's constraints and `indexes:`.
    private func appendEntityTableIndexes(_ draft: inout LayoutDraft) {
        for table in draft.tables where table.joinRelationship == nil {
            let hierarchy = draft.entitiesByRoot[table.entity] ?? []
            var columnOfRole: [StorageLayout.Role: String] = [:]
            for column in table.columns where columnOfRole[column.role] == nil {
                columnOfRole[column.role] = column.name
            }
            for column in table.columns {
                switch column.role {
                case .toOne(let entity, let relationship), .toManyKey(let entity, let relationship):
                    draft.addIndex(
                        .init(
                            name: "\(table.name)_\(column.name)_INDEX", table: table.name,
                            columns: [.init(name: column.name, isDescending: false)], isUnique: false, condition: nil),
                        origin: .relationship(entity: entity, name: relationship))
                default: break
                }
            }
            if hierarchy.count > 1 {
                draft.addIndex(
                    .init(
                        name: "\(table.name)_Z_ENT_INDEX", table: table.name,
                        columns: [.init(name: "Z_ENT", isDescending: false)], isUnique: false, condition: nil),
                    origin: .entity(table.entity))
            }
            for column in table.columns {
                if case .attribute(let entityName, let property) = column.role,
                    draft.indexedAttributes.contains("\(entityName).\(property)")
                {
                    draft.addIndex(
                        .init(
                            name: "\(table.name)_\(column.name)_INDEX", table: table.name,
                            columns: [.init(name: column.name, isDescending: false)], isUnique: false, condition: nil),
                        origin: .attribute(entity: entityName, name: property))
                }
            }
            for name in hierarchy {
                guard let entity = byName[name], !entity.uniqueness.isEmpty || !entity.indexes.isEmpty else { continue }
                appendConstraintIndexes(of: entity, in: table, columnOfRole: columnOfRole, &draft)
            }
        }
    }

    /// An entity's uniqueness constraints (unique, over its subtree's rows when it
    /// has a parent) and its `indexes:` entries.
    private func appendConstraintIndexes(
        of entity: CompiledEntity, in table: StorageLayout.Table, columnOfRole: [StorageLayout.Role: String],
        _ draft: inout LayoutDraft
    ) {
        let name = entity.name
        func column(for property: String) -> String? {
            columnName(for: property, of: entity, columnOfRole: columnOfRole)
        }
        // Built only for entities with constraints: the subtree of each entity
        // of a deep hierarchy would be quadratic text.
        let condition =
            entity.parent == nil || entity.uniqueness.isEmpty
            ? nil
            : """
            Z_ENT IN (\(subtree(of: name).compactMap { numbers[$0] }.sorted().map(String.init).joined(separator: ", ")))
            """
        for (position, constraint) in entity.uniqueness.enumerated() {
            let columns = constraint.compactMap(column(for:))
            draft.addIndex(
                .init(
                    name: "Z_\(name)_UNIQUE_\(constraint.joined(separator: "_"))", table: table.name,
                    columns: columns.map { .init(name: $0, isDescending: false) }, isUnique: true,
                    condition: condition),
                origin: .uniqueness(entity: name, position: position))
        }
        for (position, index) in entity.indexes.enumerated() {
            let columns = index.elements.compactMap { element in
                column(for: element.property).map {
                    StorageLayout.IndexColumn(name: $0, isDescending: element.isDescending)
                }
            }
            // Elements naming a to-many relationship (Xcode accepts them) have no
            // column to index: the index covers the others, or is not made.
            guard !columns.isEmpty else { continue }
            draft.addIndex(
                .init(
                    name: "Z_\(name)_\(index.name)", table: table.name, columns: columns, isUnique: false,
                    condition: nil),
                origin: .index(entity: name, position: position))
        }
    }

    /// True when relationship `mine` (entity, name) of a many-to-many pair names
    /// the pair's join table. Between two hierarchies, the entity with the lower
    /// number wins (`Z_1OWNINGACCOUNTTYPES` of AccessOptionsKey, 1, not
    /// `Z_4ACCESSKEYS` of AccountType, 4): Core Data meets the entities in number
    /// order. Within one hierarchy (one table), the relationship Core Data meets first
    /// in its table's hash order wins (`hashPositions`; Wire's `UserClient`:
    /// `Z_24TRUSTEDBYCLIENTS` with 33 stored properties, `Z_23TRUSTEDCLIENTS` with 32).
    ///
    /// "Lower number" is the number Core Data gives the version's entities (its
    /// default order), not the store's: a store of this toolkit keeps its numbers for
    /// life, and the side of each pair must still be the side a store created at
    /// this version has, so that a store's layout is a function of its version.
    /// Only a store read as it is (`existing`) keeps the side it has.
    func namesJoinTable(_ mine: (String, String), over other: (String, String), hashPositions: [String: Int]) -> Bool {
        let (a, b) = (numbers[mine.0] ?? Int.max, numbers[other.0] ?? Int.max)
        let (rankA, rankB) = (defaultRanks[mine.0] ?? Int.max, defaultRanks[other.0] ?? Int.max)
        if let existing {
            let (mineTable, otherTable) = ("Z_\(a)\(mine.1.uppercased())", "Z_\(b)\(other.1.uppercased())")
            switch (existing[mineTable] != nil, existing[otherTable] != nil) {
            case (true, false): return true
            case (false, true): return false
            default: break
            }
        }
        if byName[mine.0]?.root == byName[other.0]?.root,
            let positionA = hashPositions["\(mine.0).\(mine.1)"],
            let positionB = hashPositions["\(other.0).\(other.1)"], positionA != positionB
        {
            return positionA < positionB
        }
        if rankA != rankB { return rankA < rankB }
        return !other.1.utf16.lexicographicallyPrecedes(mine.1.utf16)
    }

    /// The join table storing to-many `r` of `owner`: `Z_<n><NAME>`, its columns
    /// the keys of the owner's rows (named after the inverse) and of the
    /// destination's (named after `r`), each `Z_<entity number>` followed by the
    /// relationship's name in its hierarchy, then `Z_FOK_` order columns.
    func joinTable(
        for r: CompiledRelationship, of owner: String, propertyNames: [String: String],
        destinationColumn given: String? = nil,
        unique: (String, String) -> String
    ) -> StorageLayout.Table {
        let d = r.declaration
        let sourceNumber = numbers[owner] ?? 0
        let destinationNumber = numbers[d.destination] ?? 0
        let tableName = "Z_\(sourceNumber)\(r.name.uppercased())"
        let sourceColumn = unique(
            "Z_\(sourceNumber)"
                + joinColumnBase(r.inverseEntity, d.inverse, owner: owner, propertyNames: propertyNames), tableName)
        let destinationColumn = unique(
            given ?? "Z_\(destinationNumber)"
                + joinColumnBase(owner, r.name, owner: owner, propertyNames: propertyNames),
            tableName)
        var columns: [StorageLayout.Column] = [
            .init(name: sourceColumn, type: "INTEGER", role: .joinKey(entity: owner, relationship: d.inverse ?? "")),
            .init(
                name: destinationColumn, type: "INTEGER", role: .joinKey(entity: d.destination, relationship: r.name)),
        ]
        if d.keepsOrder {
            columns.append(
                .init(
                    name: unique("Z_FOK_" + destinationColumn.dropFirst(2), tableName), type: "INTEGER",
                    role: .order(entity: owner, relationship: r.name)))
        }
        if r.isManyToMany, let inverseName = d.inverse, let inverseOwner = r.inverseEntity,
            let inverse = byName[inverseOwner]?.relationship(named: inverseName), inverse.declaration.keepsOrder
        {
            columns.append(
                .init(
                    name: unique("Z_FOK_" + sourceColumn.dropFirst(2), tableName), type: "INTEGER",
                    role: .order(entity: inverseOwner, relationship: inverseName)))
        }
        return .init(
            name: tableName, entity: owner, joinRelationship: "\(owner).\(r.name)", columns: columns,
            primaryKey: [sourceColumn, destinationColumn])
    }

    /// A join column's name after its `Z_<n>`: the relationship's column name in its
    /// entity's table (suffix included), or the owner's name for a relationship
    /// without an inverse.
    func joinColumnBase(_ entity: String?, _ property: String?, owner: String, propertyNames: [String: String])
        -> String
    {
        guard let entity, let property else { return owner.uppercased() }
        return String((propertyNames["\(entity).\(property)"] ?? "Z" + property.uppercased()).dropFirst())
    }

    /// The entity and every subentity below it, depth-first, with an explicit
    /// stack: a 5,000-deep hierarchy must not recurse 5,000 frames deep.
    func subtree(of name: String) -> [String] {
        var names: [String] = []
        var seen: Set<String> = []
        var stack = [name]
        while let next = stack.popLast() {
            guard seen.insert(next).inserted else { continue }
            names.append(next)
            stack += (byName[next]?.subentities ?? []).reversed()
        }
        return names
    }

    func columnName(for property: String, of entity: CompiledEntity, columnOfRole: [StorageLayout.Role: String])
        -> String?
    {
        if let a = entity.attribute(named: property) {
            return columnOfRole[.attribute(entity: a.declaredIn, property: property)]
        }
        if let r = entity.relationship(named: property) {
            return columnOfRole[.toOne(entity: r.declaredIn, relationship: property)]
        }
        return nil
    }
}
